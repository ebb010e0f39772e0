#!/bin/sh
# format.sh: every C file follows .clang-format (clang-format --dry-run --Werror).
set -eu
src=${ANIMDEX_SRCDIR:-.}
if ! command -v clang-format >/dev/null 2>&1; then
	echo "clang-format is not installed (build-aux/install-deps test installs it)" >&2
	exit 1
fi
cd "$src"
files=$(find src include tests -name '*.c' -o -name '*.h' | sort)
if clang-format --dry-run --Werror $files; then
	echo "format: $(echo "$files" | wc -l) files follow .clang-format"
else
	echo "format: run clang-format -i on the files above" >&2
	exit 1
fi

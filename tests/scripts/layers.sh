#!/bin/sh
# layers.sh: every #include in src/ and include/ keeps to the layers doc/architecture.md lists
# (its blocks `layers`, `libraries` and `pure` are the rule); then the check is checked: faults
# planted in a copy of the tree (an include of a layer above, a private header of another
# folder, libmicrohttpd in the catalogue, I/O in the pure core) must each be refused. And the
# top of tests/ holds only its README, the test command and folders.
set -eu
src=${ANIMDEX_SRCDIR:-.}
tmp=$(mktemp -d /tmp/animdex-layers-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# check ROOT: says what breaks the rule under ROOT (one line each) and fails, or says how many
# files and includes keep it
check() {
	find "$1/src" "$1/include" \( -name '*.c' -o -name '*.h' \) | sort >"$tmp/files"
	awk -v root="$1" '
	function fault(where, what) { print where ": " what " (doc/architecture.md)"; bad++ }
	function exists(path,   line, r) {
		r = (getline line < path) >= 0
		close(path)
		return r
	}
	FNR == NR {
		if ($0 ~ /^```(layers|libraries|pure)$/) { block = substr($0, 4); next }
		if ($0 ~ /^```/) { block = ""; next }
		if (block == "" || index($0, ":") == 0) next
		key = substr($0, 1, index($0, ":") - 1)
		if (block == "layers") rank[key] = ++layers
		else {
			n = split(substr($0, index($0, ":") + 1), list, " ")
			for (i = 1; i <= n; i++) {
				if (block == "libraries") { owner[key, list[i]] = 1; restricted[key] = 1 }
				else forbidden[key, ++forbid[key]] = list[i]
			}
		}
		next
	}
	{
		path = $0
		rel = substr(path, length(root) + 2)
		depth = split(rel, part, "/")
		layer = part[2]
		files++
		if (depth != 3 || !(layer in rank)) {
			fault(rel, "a C file outside the layers'"'"' folders")
			next
		}
		dir = substr(path, 1, length(path) - length(part[3]) - 1)
		number = 0
		while ((getline line < path) > 0) {
			number++
			if (line !~ /^[ \t]*#[ \t]*include/) continue
			where = rel ":" number
			includes++
			if (match(line, /"[^"]*"/)) {
				name = substr(line, RSTART + 1, RLENGTH - 2)
				if (index(name, "..")) { fault(where, "includes " name ": no .. in an include"); continue }
				slash = index(name, "/")
				if (slash == 0) {
					if (!exists(dir "/" name))
						fault(where, "includes " name ", which is not beside it: another folder'"'"'s header is included as LAYER/" name)
					continue
				}
				target = substr(name, 1, slash - 1)
				if (!(target in rank)) fault(where, "includes " name ": " target " is no layer")
				else if (rank[target] > rank[layer])
					fault(where, "includes " name ": " target " is above " layer)
				else if (!exists(root "/include/" name))
					fault(where, "includes " name ", which is not in include/")
			} else if (match(line, /<[^>]*>/)) {
				name = substr(line, RSTART + 1, RLENGTH - 2)
				if ((name in restricted) && !((name, rel) in owner))
					fault(where, "includes <" name ">, which only its owners may")
				for (i = 1; i <= forbid[layer]; i++) {
					f = forbidden[layer, i]
					if (name == f || (f ~ /\/$/ && index(name, f) == 1))
						fault(where, "includes <" name ">: " layer " does no I/O")
				}
			}
		}
		close(path)
	}
	END {
		if (layers < 2) { print "doc/architecture.md lists no layers"; exit 1 }
		if (bad) exit 1
		printf "%d files, %d includes in %d layers\n", files, includes, layers
	}' "$1/doc/architecture.md" "$tmp/files"
}

if ! out=$(check "$src"); then
	echo "$out" >&2
	echo "FAIL: layers: the includes above break doc/architecture.md's rule" >&2
	exit 1
fi
echo "layers: $out keep to doc/architecture.md"

# tests/ keeps its files in folders: only its README and the test command at its top
loose=$(find "$src/tests" -maxdepth 1 -type f ! -name README.md ! -name run-all \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.txt' -o -name '*.md' -o -name '*.mjs' \
	-o -name '*.py' -o -name '*.lua' -o -name '*.json' \) | sort)
if [ -n "$loose" ]; then
	echo "FAIL: layers: loose files at the top of tests/ (put each in the folder of its job, tests/README.md):" $loose >&2
	exit 1
fi

# The checker, checked: each fault planted alone in a fresh copy must be refused, naming its file.
plant() { # FILE LINE WHAT
	rm -rf "$tmp/tree"
	mkdir "$tmp/tree"
	cp -r "$src/src" "$src/include" "$src/doc" "$tmp/tree/"
	sed -i "1a $2" "$tmp/tree/$1"
	if out=$(check "$tmp/tree"); then
		echo "FAIL: layers: the check let $3 in $1 through" >&2
		exit 1
	fi
	if ! echo "$out" | grep -q "^$1:2: "; then
		echo "FAIL: layers: the check refused $3 without naming $1:2: $out" >&2
		exit 1
	fi
}
plant src/core/curve.c '#include "http/http.h"' "an include of a layer above"
plant include/formats/format.h '#include "catalog/catalog.h"' "a public header including a layer above"
plant src/answers/export.c '#include "catalog_internal.h"' "another folder's private header"
plant src/answers/export.c '#include "../catalog/catalog_internal.h"' "a path with .."
plant src/catalog/catalog.c '#include <microhttpd.h>' "libmicrohttpd outside the HTTP server"
plant src/http/routes.c '#include <sqlite3.h>' "SQLite outside the catalogue's backend"
plant src/core/pose.c '#include <unistd.h>' "I/O in the pure core"
echo "layers: the check refused each of 7 planted faults"

#!/bin/sh
# docs.sh: the man page, --help and the route table say the same: every option that
# any command's --help shows is in the man page and the other way round, and every route of
# src/http/routes.c is in the man page's API section and the README's API table; every section
# of doc/formats.md a comment cites is there, and no comment cites a document the repository
# does not hold. Prints "PASS: x" / "FAIL: x" per check.
set -u
src=${ANIMDEX_SRCDIR:-.}
man="$src/man/animdexd.1"
status=0
dir=$(mktemp -d /tmp/animdex-docs-XXXXXX)
check() { # name ok detail
	if [ "$2" = 0 ]; then echo "PASS: $1"; else echo "FAIL: $1 ($3)"; status=1; fi
}
{
	"$ANIMDEXD" --help
	for cmd in import redecode export native token; do "$ANIMDEXD" "$cmd" --help; done
} >"$dir/help" 2>&1
grep -oE -- '--[a-z][a-z0-9-]+' "$dir/help" | sort -u >"$dir/help.options"
# the man page writes options as \-\-name
sed 's/\\-/-/g' "$man" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u >"$dir/man.options"
missing=$(comm -23 "$dir/help.options" "$dir/man.options" | tr '\n' ' ')
check "docs: every option of --help is in the man page" "$([ -z "$missing" ] && echo 0 || echo 1)" "missing: $missing"
extra=$(comm -13 "$dir/help.options" "$dir/man.options" | tr '\n' ' ')
check "docs: every option of the man page is in --help" "$([ -z "$extra" ] && echo 0 || echo 1)" "not in --help: $extra"
# {} captures are named as the documents name them: {crc32} for a handle, else {id} then {n}
sed -n 's/^ *{"\([A-Z]*\)", "\(\/api[^"]*\)".*/\1 \2/p' "$src/src/http/routes.c" |
	sed -e 's|/api/handles/{}|/api/handles/{crc32}|' -e 's|{}|{id}|' -e 's|{}|{n}|' >"$dir/routes"
nroutes=$(wc -l <"$dir/routes")
absent=""
while read -r method path; do
	grep -qF ".B $method $path" "$man" || absent="$absent man:$method $path"
	grep -qF "\`$method $path\`" "$src/README.md" || absent="$absent README:$method $path"
done <"$dir/routes"
check "docs: the $nroutes routes are in the man page and the README" "$([ -z "$absent" ] && [ "$nroutes" -ge 10 ] && echo 0 || echo 1)" "absent:$absent"
# every section of doc/formats.md that a comment cites is there
formats="$src/doc/formats.md"
cited=$(grep -rhoE 'doc/formats\.md [0-9]+(\.[0-9]+)?' "$src/src" "$src/include" "$src/tests"/*.c \
	"$src/tests"/*.h "$src/schema" 2>/dev/null | sed 's/.* //' | sort -u)
missing=""
for section in $cited; do
	grep -qE "^#+ $section[. ]" "$formats" || missing="$missing $section"
done
check "docs: the $(echo "$cited" | wc -w) sections of doc/formats.md cited in the code are there" \
	"$([ -z "$missing" ] && [ -n "$cited" ] && echo 0 || echo 1)" "missing:$missing"
uncited=$(grep -rlE '(FORMATS|DESIGN)( section)? [0-9]' "$src/src" "$src/include" "$src/tests"/*.c \
	"$src/tests"/*.h "$src/schema" 2>/dev/null | grep -v '\.o$' | tr '\n' ' ')
check "docs: no comment cites a document that is not in the repository" \
	"$([ -z "$uncited" ] && echo 0 || echo 1)" "in: $uncited"
rm -rf "$dir"
exit $status

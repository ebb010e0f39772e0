#!/bin/sh
# blender_native.sh: the modder's loop through a real Blender (Debian's, headless). The walk
# tests/daemon/check_native left in $ANIMDEX_NATIVE_DIR is uploaded to a fresh daemon and
# exported (.glb); Blender imports that and exports it again with its defaults, which sample
# every frame (tests/export/blender_reexport.py); that file is uploaded and written back with
# native?template=<the walk>&reduce=TOLERANCE, and the game file is uploaded too.
# tests/export/native_compare.py then samples every track at 1,000 times and prints its
# "PASS: x" / "FAIL: x" lines. ANIMDEX_NO_BLENDER=1 skips it, counted as skipped.
set -u
src=${ANIMDEX_SRCDIR:-.}
tools="$src/tests/export"
walk=${ANIMDEX_NATIVE_DIR:-tests/output/native}/walk.Animation_Z
tolerance=0.001
if [ "${ANIMDEX_NO_BLENDER:-0}" = 1 ]; then
	echo "SKIP: blender native: Blender (ANIMDEX_NO_BLENDER=1)"
	exit 0
fi
if ! command -v blender >/dev/null 2>&1; then
	echo "FAIL: blender native: blender is needed (build-aux/install-deps test installs it; ANIMDEX_NO_BLENDER=1 skips)"
	exit 1
fi
if [ ! -s "$walk" ]; then
	echo "FAIL: blender native: no $walk (tests/daemon/check_native writes it)"
	exit 1
fi
dir=$(mktemp -d /tmp/animdex-blender-native-XXXXXX)
"$ANIMDEXD" --listen 127.0.0.1:0 --db "$dir/native.db" --quiet >"$dir/out" 2>"$dir/err" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 50); do
	grep -q listening "$dir/out" 2>/dev/null && break
	sleep 0.2
done
base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/out")
if [ -z "$base" ]; then
	cat "$dir/err"
	echo "FAIL: blender native: the daemon did not start"
	exit 1
fi
upload() { # FILE: the new entry's id
	curl -s -F "file=@$1" "$base/api/resources" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["resources"][0]["id"])'
}
fetch() { # PATH FILE: 0 when the answer is 200
	[ "$(curl -s -o "$2" -w '%{http_code}' "$base$1")" = 200 ]
}
original=$(upload "$walk")
fetch "/api/resources/$original/export" "$dir/walk.glb" || {
	echo "FAIL: blender native: the export of the walk: $(cat "$dir/walk.glb")"
	exit 1
}
sh "$src/tests/lib/blender.sh" "$tools/blender_reexport.py" "$dir/walk.glb" "$dir/walk_blender.glb" \
	>"$dir/blender.log" 2>&1
if [ $? != 0 ] || [ ! -s "$dir/walk_blender.glb" ]; then
	tail -n 20 "$dir/blender.log"
	echo "FAIL: blender native: Blender did not export the walk again"
	exit 1
fi
echo "PASS: blender native: Blender imported the walk's export and exported it again"
dense=$(upload "$dir/walk_blender.glb")
query="template=$original&reduce=$tolerance"
if ! fetch "/api/resources/$dense/native?$query" "$dir/back.Animation_Z" ||
	! fetch "/api/resources/$dense/native?$query&summary=1" "$dir/report.json"; then
	echo "FAIL: blender native: native?$query: $(cat "$dir/back.Animation_Z" "$dir/report.json")"
	exit 1
fi
back=$(upload "$dir/back.Animation_Z")
echo "blender native: the walk is entry $original, Blender's file $dense, the game file $back ($(wc -c <"$dir/back.Animation_Z") bytes; the original $(wc -c <"$walk"))"
python3 "$tools/native_compare.py" "$base" "$original" "$dense" "$back" "$tolerance" "$dir/report.json"

#!/bin/sh
# export.sh: the assets tests/daemon/check_export, check_export_rig and check_retarget wrote to
# $ANIMDEX_EXPORT_DIR (a folder each: all/, rig/, and retarget/ where the CMU take is), checked by the
# Khronos glTF Validator (npm gltf-validator, pinned in tests/export/package-lock.json,
# installed by tests/lib/npm-tool.sh): 0 errors and 0 warnings each; then imported by a real Blender
# (Debian's, headless), whose F-curves must show animdex's samples (tests/export/
# blender_check.py). ANIMDEX_NO_BLENDER=1 skips the Blender part, counted as skipped.
set -u
src=${ANIMDEX_SRCDIR:-.}
exports=${ANIMDEX_EXPORT_DIR:-tests/output/export}
tools="$src/tests/export"
status=0
for part in all rig; do
	if ! ls "$exports/$part"/*.glb >/dev/null 2>&1; then
		echo "FAIL: export: no exported assets in $exports/$part (tests/daemon/check_export and check_export_rig write them)"
		exit 1
	fi
done
sh "$src/tests/lib/npm-tool.sh" "$tools" gltf-validator || exit 1
node "$tools/validate.mjs" "$exports"/*/*.glb "$exports"/*/*.gltf || status=1
if [ "${ANIMDEX_NO_BLENDER:-0}" = 1 ]; then
	echo "SKIP: export: Blender (ANIMDEX_NO_BLENDER=1)"
	exit $status
fi
if ! command -v blender >/dev/null 2>&1; then
	echo "FAIL: export: blender is needed (build-aux/install-deps test installs it; ANIMDEX_NO_BLENDER=1 skips)"
	exit 1
fi
set --
for expected in "$exports"/*/*.expected.json; do
	set -- "$@" "${expected%.expected.json}.glb" "$expected"
done
sh "$src/tests/lib/blender.sh" "$tools/blender_check.py" "$@" >"$exports/blender.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL): |^blender: ' "$exports/blender.log"
grep -q '^blender: .* values compared' "$exports/blender.log" || rc=1 # it ran to its end
if [ $rc != 0 ] && ! grep -q '^FAIL: ' "$exports/blender.log"; then
	tail -n 20 "$exports/blender.log"
	echo "FAIL: export: Blender did not finish (exit $rc)"
fi
[ $rc = 0 ] || status=1
exit $status

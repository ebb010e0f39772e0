#!/bin/bash
# mutate.sh: mutation testing (`make mutate`; not part of CI: it takes a while). Applies each
# mutant of tests/mutation/mutants.txt alone to the sources, rebuilds, and runs the Check programs,
# fastest first, until one fails (caught) or all pass (survived). Prints each mutant with its
# verdict, then the score. The sources are restored after each mutant, whatever happens.
# Run from the build folder: ANIMDEX_SRCDIR is the source folder (the same when in-tree).
set -u
src=${ANIMDEX_SRCDIR:-.}
build=$(pwd)
list=${MUTANTS:-$src/tests/mutation/mutants.txt}
# MUTATE_PROGRAMS: other programs, to try a few mutants against the suite meant to catch them
programs=${MUTATE_PROGRAMS:-"unit/check_reader unit/check_hash unit/check_curve unit/check_render \
unit/check_track_answer unit/check_rig unit/check_radient unit/check_zouna unit/check_skel unit/check_gltf unit/check_bvh unit/check_bonemap unit/check_retarget unit/check_sqlite_wal \
unit/check_burnout unit/check_native unit/check_native_file unit/check_native_tangents unit/check_reduce unit/check_catalog unit/check_regressions \
daemon/check_native daemon/check_upgrade \
daemon/check_answers daemon/check_http daemon/check_crash daemon/check_export daemon/check_export_rig daemon/check_pose daemon/check_retarget \
daemon/check_compare daemon/check_hostile daemon/check_safety daemon/check_events \
daemon/powercut/check_powercut"}
export ANIMDEXD="$build/animdexd" ANIMDEX_SRCDIR="$src" CK_VERBOSITY=silent CK_DEFAULT_TIMEOUT=120
export ANIMDEX_FIXTURES=${ANIMDEX_FIXTURES:-$src/../shared/fixtures}
caught=0 survived=0 broken=0 n=0
backup=$(mktemp -d /tmp/animdex-mutate-XXXXXX)
restore() {
	[ -n "${current:-}" ] && cp "$backup/file" "$src/$current"
	current=""
}
trap 'restore; make -s -j2 check TESTS= >/dev/null 2>&1; rm -rf "$backup"' EXIT
trap 'exit 130' INT TERM
# the unmutated sources must pass, or every verdict below would mean nothing
make -s -j2 check TESTS= >"$backup/build.log" 2>&1 || { echo "mutate: the sources do not build"; exit 2; }
for p in $programs; do
	if ! timeout 600 "$build/tests/$p" >"$backup/${p##*/}.log" 2>&1; then
		echo "mutate: $p fails without any mutant; fix that first:"
		tail -n 5 "$backup/${p##*/}.log"
		exit 2
	fi
done
while IFS=$'\t' read -r file text replacement what; do
	case "$file" in "" | \#*) continue ;; esac
	n=$((n + 1))
	count=$(grep -cF -- "$text" "$src/$file")
	if [ "$count" != 1 ]; then
		printf '%2d  stale     %-28s %s (the text occurs %s times)\n' "$n" "$file" "$what" "$count"
		broken=$((broken + 1))
		continue
	fi
	current=$file
	cp "$src/$file" "$backup/file"
	TEXT=$text REPLACEMENT=$replacement perl -0pi -e 's/\Q$ENV{TEXT}\E/$ENV{REPLACEMENT}/' "$src/$file"
	if ! make -s -j2 check TESTS= >"$backup/build.log" 2>&1; then
		printf '%2d  caught    %-28s %s (does not build)\n' "$n" "$file" "$what"
		caught=$((caught + 1))
		restore
		continue
	fi
	by=""
	for p in $programs; do
		if ! timeout 600 "$build/tests/$p" >"$backup/${p##*/}.log" 2>&1; then
			by=$p
			break
		fi
	done
	if [ -n "$by" ]; then
		printf '%2d  caught    %-28s %s (by %s)\n' "$n" "$file" "$what" "$by"
		caught=$((caught + 1))
	else
		printf '%2d  SURVIVED  %-28s %s\n' "$n" "$file" "$what"
		survived=$((survived + 1))
	fi
	restore
done <"$list"
total=$((caught + survived))
echo "mutation score: $caught of $total caught ($((total ? 100 * caught / total : 0))%), $survived survived, $broken stale"
[ "$survived" = 0 ] && [ "$broken" = 0 ]

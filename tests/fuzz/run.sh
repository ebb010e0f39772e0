#!/bin/sh
# run.sh [SECONDS]: builds one libFuzzer target per decoder and one for the upload router
# (clang, with AddressSanitizer and UndefinedBehaviorSanitizer), seeds each from the fixture
# writers, runs each for SECONDS (default 20), and prints "PASS: fuzz TARGET: N executions"
# or "FAIL: ..." per target. Crashing inputs are kept in fuzz-build/findings/TARGET/; once
# fixed, copy them to tests/fuzz/regressions/TARGET/, where the test suite replays them.
# Every input has a time limit (-timeout): an input that takes longer is a finding, as a
# crash is, so that work out of proportion to an input's size (a quadratic search) shows.
set -u
src=${ANIMDEX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
seconds=${1:-20}
build=$(pwd)/fuzz-build
status=0
mkdir -p "$build"
if ! command -v clang >/dev/null 2>&1; then
	echo "FAIL: fuzz: clang is needed (./autogen.sh installs it)"
	exit 1
fi
common="-D_POSIX_C_SOURCE=200809L -I$src/include -I$src/tests/lib $(pkg-config --cflags jansson)"
libs="$(pkg-config --libs jansson zlib) -lm"
decoders="$src/src/base/error.c $src/src/base/buf.c $src/src/base/hash.c $src/src/core/model.c $src/src/core/rig.c $src/src/core/curve.c $src/src/core/reduce.c $src/src/base/base64.c \
$src/src/formats/format.c $src/src/formats/reader.c $src/src/formats/writer.c $src/src/formats/radient.c $src/src/formats/radient_native.c \
$src/src/formats/zouna.c $src/src/formats/zouna_keys.c $src/src/formats/zouna_native.c $src/src/formats/zouna_native_chains.c $src/src/formats/zouna_native_check.c $src/src/formats/zouna_native_keys.c $src/src/formats/zouna_native_plan.c $src/src/formats/zouna_skel.c $src/src/formats/zouna_skel_native.c $src/src/formats/gltf.c $src/src/formats/gltf_data.c $src/src/formats/gltf_kept.c $src/src/formats/gltf_rig.c $src/src/formats/burnout.c $src/src/formats/burnout_bundle.c $src/src/formats/burnout_native.c $src/src/formats/burnout_rig.c $src/src/formats/bvh.c $src/src/formats/bonemap_doc.c $src/src/base/utf8.c"
# seeds, from the same writers the tests use
# shellcheck disable=SC2086
clang -O1 $common -o "$build/make_seeds" "$src/tests/fuzz/make_seeds.c" \
	"$src/tests/lib/zouna_writer.c" "$src/tests/lib/burnout_writer.c" "$src/tests/lib/gltf_writer.c" \
	"$src/src/base/base64.c" "$src/src/base/hash.c" $libs || { echo "FAIL: fuzz: seeds do not build"; exit 1; }
rm -rf "$build/seeds"
"$build/make_seeds" "$build/seeds"
mkdir -p "$build/seeds/radient"
for f in "$src"/tests/data/radient/valid/*.json; do
	{ printf '\000'; cat "$f"; } >"$build/seeds/radient/$(basename "$f")"
done
mkdir -p "$build/seeds/bvh"
cp "$src"/tests/data/bvh/*.bvh "$build/seeds/bvh/"
for target in radient zouna native skel gltf burnout bvh router; do
	family=$target
	[ "$target" = router ] && family=""
	# shellcheck disable=SC2086
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-DFUZZ_FAMILY="\"$family\"" $common -o "$build/fuzz_$target" \
		"$src/tests/fuzz/fuzz_target.c" $decoders $libs 2>"$build/$target.build.log" || {
		echo "FAIL: fuzz $target: does not build (see $build/$target.build.log)"
		status=1
		continue
	}
	corpus="$build/corpus/$target"
	findings="$build/findings/$target"
	mkdir -p "$corpus" "$findings"
	[ -d "$build/seeds/$target" ] && cp -n "$build/seeds/$target"/* "$corpus/" 2>/dev/null
	[ "$target" = native ] && cp -n "$build/seeds/zouna"/* "$corpus/" 2>/dev/null
	[ -d "$src/tests/fuzz/regressions/$target" ] && cp -n "$src/tests/fuzz/regressions/$target"/* "$corpus/" 2>/dev/null
	"$build/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 \
		-rss_limit_mb=2048 -timeout=5 -artifact_prefix="$findings/" "$corpus" >"$build/$target.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$target.log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "PASS: fuzz $target: ${runs:-0} executions in ${seconds} s, corpus $(ls "$corpus" | wc -l) inputs"
	else
		echo "FAIL: fuzz $target: a finding after ${runs:-?} executions: $(ls "$findings" | head -n 1) (see $build/$target.log)"
		status=1
	fi
done
exit $status

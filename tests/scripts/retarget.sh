#!/bin/sh
# retarget.sh: animdex's mode=world retarget of Debian's CMU take 01_01 against three.js 0.187's
# SkeletonUtils.retarget (npm three, pinned in tests/pose/package-lock.json, installed by
# tests/lib/npm-tool.sh): tests/pose/retarget.test.mjs runs a real animdexd and compares every
# bone's world rotation at 40 frames within 1e-5.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
sh "$src/tests/lib/npm-tool.sh" "$src/tests/pose" three || exit 1
exec node "$src/tests/pose/retarget.test.mjs"

#!/bin/sh
# pose.sh: animdex's poses of glTF files against three.js 0.187 (npm three, pinned in
# tests/pose/package-lock.json, installed by tests/lib/npm-tool.sh): tests/pose/pose.test.mjs
# uploads the fixtures and trees it writes to a real animdexd and compares every rig node's
# world matrix from GET .../pose with three.js's AnimationMixer and updateMatrixWorld.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
sh "$src/tests/lib/npm-tool.sh" "$src/tests/pose" three || exit 1
exec node "$src/tests/pose/pose.test.mjs"

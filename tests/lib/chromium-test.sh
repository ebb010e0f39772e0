#!/bin/sh
# chromium-test.sh TEST.mjs: runs one of tests/browser's tests in Debian's Chromium with
# playwright-core (pinned in tests/browser/package-lock.json at a version that runs on Debian
# 12's Node.js 18, installed and checked by tests/lib/npm-tool.sh), screenshots into
# $ANIMDEX_SCREENSHOTS (tests/output by default). It fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
if [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: /usr/bin/chromium is needed (build-aux/install-deps test installs Debian's chromium)"
	exit 1
fi
sh "$src/tests/lib/npm-tool.sh" "$src/tests/browser" playwright-core || exit 1
echo "$1: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
ANIMDEX_SCREENSHOTS=${ANIMDEX_SCREENSHOTS:-$(pwd)/tests/output}
export ANIMDEX_SCREENSHOTS
exec node "$src/tests/browser/$1"

#!/bin/sh
# retarget_page.sh: the page's "On another skeleton" in Debian's Chromium
# (tests/browser/retarget.test.mjs, with playwright-core as view.sh runs it): a BVH take played
# retargeted onto a skeleton of other names and axes, its bone map edited and saved, the
# retargeted downloads. It fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
if [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: /usr/bin/chromium is needed (build-aux/install-deps test installs Debian's chromium)"
	exit 1
fi
sh "$src/tests/lib/npm-tool.sh" "$src/tests/browser" playwright-core || exit 1
ANIMDEX_SCREENSHOTS=${ANIMDEX_SCREENSHOTS:-$(pwd)/tests/output}
export ANIMDEX_SCREENSHOTS
exec node "$src/tests/browser/retarget.test.mjs"

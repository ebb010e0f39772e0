#!/bin/sh
# view.sh: the page's 3D view in Debian's Chromium (tests/browser/view.test.mjs, with
# playwright-core as web.sh runs it; headless Chromium renders WebGL in software, and a second
# Chromium starts without WebGL). It fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
if [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: /usr/bin/chromium is needed (build-aux/install-deps test installs Debian's chromium)"
	exit 1
fi
if [ ! -e /usr/share/javascript/three/build/three.module.js ]; then
	echo "FAIL: three.js is needed (./autogen.sh installs Debian's libjs-three)"
	exit 1
fi
sh "$src/tests/lib/npm-tool.sh" "$src/tests/browser" playwright-core || exit 1
ANIMDEX_SCREENSHOTS=${ANIMDEX_SCREENSHOTS:-$(pwd)/tests/output}
export ANIMDEX_SCREENSHOTS
exec node "$src/tests/browser/view.test.mjs"

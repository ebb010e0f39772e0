#!/bin/sh
# view.sh: the page's 3D view in Debian's Chromium (tests/browser/view.test.mjs, as
# tests/lib/chromium-test.sh runs it; headless Chromium renders WebGL in software, and a second
# Chromium starts without WebGL). It fails, never skips, when it cannot run.
if [ ! -e /usr/share/javascript/three/build/three.module.js ]; then
	echo "FAIL: three.js is needed (./autogen.sh installs Debian's libjs-three)"
	exit 1
fi
exec sh "${ANIMDEX_SRCDIR:-.}/tests/lib/chromium-test.sh" view.test.mjs

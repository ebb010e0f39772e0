#!/bin/sh
# web.sh: the web page's test in Debian's Chromium with playwright-core (pinned in
# tests/browser/package-lock.json at a version that runs on Debian 12's Node.js 18, installed
# and checked by tests/lib/npm-tool.sh). It fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
browser="$src/tests/browser"
if [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: /usr/bin/chromium is needed (build-aux/install-deps test installs Debian's chromium)"
	exit 1
fi
sh "$src/tests/lib/npm-tool.sh" "$browser" playwright-core || exit 1
echo "web: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
ANIMDEX_SCREENSHOTS=${ANIMDEX_SCREENSHOTS:-$(pwd)/tests/output}
export ANIMDEX_SCREENSHOTS
exec node "$browser/web.test.mjs"

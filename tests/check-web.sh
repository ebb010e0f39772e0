#!/bin/sh
# check-web.sh: the web page's test in Debian's Chromium with playwright-core (pinned in
# tests/browser/package-lock.json, installed here from the npm registry when missing). It
# fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
browser="$src/tests/browser"
if ! command -v node >/dev/null 2>&1 || [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: node and /usr/bin/chromium are needed (./autogen.sh installs them)"
	exit 1
fi
if [ ! -d "$browser/node_modules/playwright-core" ]; then
	(cd "$browser" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "FAIL: npm ci in tests/browser failed"
		exit 1
	}
fi
ANIMDEX_SCREENSHOTS=${ANIMDEX_SCREENSHOTS:-$(pwd)/tests/output}
export ANIMDEX_SCREENSHOTS
exec node "$browser/web.test.mjs"

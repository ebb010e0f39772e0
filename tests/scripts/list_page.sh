#!/bin/sh
# list_page.sh: the catalogue's windowed list in Debian's Chromium (tests/browser/list.test.mjs,
# with playwright-core as web.sh runs it): a catalogue of 100,000 entries (LIST_ENTRIES) scrolled
# to its end, every row seen once and in order with a few hundred rows in the page at most,
# another sort, a search as it is typed. It fails, never skips, when it cannot run.
set -u
src=${ANIMDEX_SRCDIR:-.}
case $src in /*) ;; *) src=./$src ;; esac
if [ ! -x /usr/bin/chromium ]; then
	echo "FAIL: /usr/bin/chromium is needed (build-aux/install-deps test installs Debian's chromium)"
	exit 1
fi
sh "$src/tests/lib/npm-tool.sh" "$src/tests/browser" playwright-core || exit 1
exec node "$src/tests/browser/list.test.mjs"

#!/bin/sh
# list_page.sh: the catalogue's windowed list in Debian's Chromium (tests/browser/list.test.mjs,
# as tests/lib/chromium-test.sh runs it): a catalogue of 100,000 entries (LIST_ENTRIES) scrolled
# to its end, every row seen once and in order with a few hundred rows in the page at most,
# another sort, a search as it is typed. It fails, never skips, when it cannot run.
exec sh "${ANIMDEX_SRCDIR:-.}/tests/lib/chromium-test.sh" list.test.mjs

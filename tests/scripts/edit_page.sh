#!/bin/sh
# edit_page.sh: the page's key editor in Debian's Chromium (tests/browser/edit.test.mjs, as
# tests/lib/chromium-test.sh runs it): keys changed, deleted and inserted, undone and done again,
# a bad value refused, and the result saved as a new version. It fails, never skips, when it
# cannot run.
exec sh "${ANIMDEX_SRCDIR:-.}/tests/lib/chromium-test.sh" edit.test.mjs

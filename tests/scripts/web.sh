#!/bin/sh
# web.sh: the web page's test (tests/browser/web.test.mjs) in Debian's Chromium, as
# tests/lib/chromium-test.sh runs it. It fails, never skips, when it cannot run.
exec sh "${ANIMDEX_SRCDIR:-.}/tests/lib/chromium-test.sh" web.test.mjs

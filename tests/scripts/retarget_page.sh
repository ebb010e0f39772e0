#!/bin/sh
# retarget_page.sh: the page's "On another skeleton" in Debian's Chromium
# (tests/browser/retarget.test.mjs, as tests/lib/chromium-test.sh runs it): a BVH take played
# retargeted onto a skeleton of other names and axes, its bone map edited and saved, the
# retargeted downloads. It fails, never skips, when it cannot run.
exec sh "${ANIMDEX_SRCDIR:-.}/tests/lib/chromium-test.sh" retarget.test.mjs

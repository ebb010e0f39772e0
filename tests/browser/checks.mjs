// checks.mjs: a browser test's checks, printed one a line the way tests/lib/summary.sh reads
// them: "PLAN: N" first (the checks the test will make), then "PASS: name" or "FAIL: name
// (why)" or "SKIP: name: why". A test that dies part way has the checks it never made counted as
// failed (summary.sh reads the plan); one that ends having made another number than it planned
// fails, so the plan is kept true.
//
// And the page's published state (www/status.js), which the tests wait on instead of a time:
// entryShown(page, id) until entry `id` is shown whole and nothing is pending.

export function planChecks(planned) {
  console.log(`PLAN: ${planned}`);
  const made = { count: 0, failures: 0 };
  return {
    check(name, ok, detail = '') {
      made.count++;
      console.log(`${ok ? 'PASS' : 'FAIL'}: ${name}${ok || !detail ? '' : ` (${detail})`}`);
      if (!ok) made.failures++;
      return ok;
    },
    skip(name, why) {
      made.count++;
      console.log(`SKIP: ${name}: ${why}`);
    },
    // the number of failures, a check of the plan among them
    failures() {
      if (made.count !== planned) {
        console.log(`FAIL: the test made ${made.count} checks of the ${planned} it planned`);
        return made.failures + 1;
      }
      return made.failures;
    },
  };
}

// Waits until entry `id` is open and shown whole (its chart drawn, its view posed) and nothing the
// page asked for is pending.
export function entryShown(page, id, timeout = 20000) {
  return page.waitForFunction((want) => document.body.dataset.entry === String(want)
    && document.body.dataset.chart === String(want) && document.body.dataset.pending === '0',
  id, { timeout });
}

// Waits until nothing the page asked for is pending (the entry open, if any, shown whole).
export function pageStill(page, timeout = 20000) {
  return page.waitForFunction(() => document.body.dataset.pending === '0'
    && document.body.dataset.ready === 'true', null, { timeout });
}

// Runs a test's main() to its end, then `cleanup`, and exits: non-zero when a check failed, the
// plan was not kept, or main() died part way (said as a failure of its own, with the stack).
export async function runToTheEnd(name, main, planned, cleanup) {
  let died = false;
  try {
    await main();
  } catch (e) {
    console.log(`FAIL: ${name}: the browser test could not run to its end (${e.stack})`);
    died = true;
  }
  cleanup();
  process.exit(planned.failures() || died ? 1 : 0);
}

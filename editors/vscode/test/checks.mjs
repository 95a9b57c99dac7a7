// The named checks of the script-driven suites (test/webview/run.mjs, test/e2e/ui.mjs): each
// prints "ok - name" or "not ok - name" with the first lines of its error, and `finish()` prints
// the "N passed, N failed" line the Makefile's runs are read by and exits 1 on any failure.
// `stopAfterFailure`: a sequence of dependent steps (the UI test) counts the rest as failed.
export function checks({ stopAfterFailure = false, stackLines = 4 } = {}) {
  const totals = { passed: 0, failed: 0 };
  let stopped = false;
  async function check(name, fn) {
    if (stopped) {
      totals.failed++;
      console.log(`not ok - ${name} (skipped after an earlier failure)`);
      return;
    }
    try {
      await fn();
      totals.passed++;
      console.log(`ok - ${name}`);
    } catch (err) {
      totals.failed++;
      stopped = stopAfterFailure;
      console.log(`not ok - ${name}\n  ${String(err?.stack ?? err).split("\n").slice(0, stackLines).join("\n  ")}`);
    }
  }
  function finish() {
    console.log(`${totals.passed} passed, ${totals.failed} failed`);
    process.exit(totals.failed ? 1 : 0);
  }
  return { check, finish, totals };
}

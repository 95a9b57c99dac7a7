#!/usr/bin/env node
// Extension-host tests: mocha (test/suite, bundled to out-test/suite) inside code-server's real
// Node extension host, the extension loaded in development mode from this folder, the real
// daemon (.venv/bin/pi-lsp) and the scripted provider. The workbench reports mocha's exit code
// through window.codeAutomationExit; the suite also writes its results to $PI_TEST_RESULT.
import { existsSync, readFileSync } from "node:fs";
import { setup, ext } from "./harness.mjs";

/** One code-server run of the mocha suite in out-test/<suite>; true when it passed. */
async function suite(name, multiRoot, untrusted = false) {
const run = await setup({ name, multiRoot, untrusted });
let code = 1;
try {
  await run.start();
  const browser = await run.browser();
  const page = await browser.newPage();
  page.on("console", (m) => {
    const t = m.text();
    if (/^(\s*(✔|✓|\d+\) |ok|not ok|passing|failing|pending)|\s+\d+ (passing|failing))/.test(t) || t.includes("pi-suite")) console.log(t);
  });
  const auth = new URL(run.base).host;
  const payload = JSON.stringify([
    ["extensionDevelopmentPath", `vscode-remote://${auth}${ext}`],
    ["extensionTestsPath", `vscode-remote://${auth}${ext}/out-test/${name}`],
  ]);
  const done = new Promise((r) => page.exposeFunction("codeAutomationExit", (c) => r(c)));
  await page.goto(`${run.base}/?${run.target()}&payload=${encodeURIComponent(payload)}`);
  code = await Promise.race([done, new Promise((r) => setTimeout(() => r("timeout"), 240000))]);
  const file = run.env.PI_TEST_RESULT;
  if (existsSync(file)) {
    const res = JSON.parse(readFileSync(file, "utf8"));
    for (const t of res.tests) console.log(`${t.ok ? "ok" : "not ok"} - ${t.title}${t.ok ? "" : `\n  ${t.error}`}`);
    totals.passed += res.passed;
    totals.failed += res.failed;
    if (code === 0 && res.failed) code = 1;
  } else {
    totals.failed++;
    console.log(`not ok - ${name}: no results (workbench exit: ${code})`);
  }
} finally {
  run.stop();
}
return code === 0;
}

const totals = { passed: 0, failed: 0 };
// PI_SUITES=untrusted (comma-separated) runs only those suites, while working on one
const only = process.env.PI_SUITES?.split(",");
const wanted = [["suite", false, false], ["multiroot", true, false], ["untrusted", false, true]].filter(([n]) => !only || only.includes(n));
let ok = true;
for (const [name, multiRoot, untrusted] of wanted) ok = (await suite(name, multiRoot, untrusted)) && ok;
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(ok ? 0 : 1);

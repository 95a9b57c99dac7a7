#!/usr/bin/env node
// The VS Code benchmarks (docs/benchmarks.md): code-server with the extension in development
// mode, the real daemon, the scripted provider; bench/suite runs in the extension host and
// hands over to this script to scroll the 22k-entry tree while long tasks are observed.
// Run: make bench-vscode (or node bench/run.mjs in editors/vscode after npm run build).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setup, ext, repo } from "../test/harness.mjs";

const large = [process.env.PI_LSP_CONFORMANCE_DIR, join(repo, "..", "shared", "conformance", "pi-v0.58.3"), "/work/shared/conformance/pi-v0.58.3"]
  .filter(Boolean).map((d) => resolve(d, "sessions", "bench-large-20k.jsonl.gz")).find((f) => existsSync(f));
if (!large) throw new Error("bench-large-20k.jsonl.gz not found (set PI_LSP_CONFORMANCE_DIR)");
const run = await setup({ name: "bench" });
run.env.PI_BENCH_DIR = run.w;
run.env.PI_BENCH_RESULT = join(run.w, "bench.json");
run.env.PI_BENCH_LARGE = large;
let code = 1;
try {
  await run.start();
  const browser = await run.browser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const auth = new URL(run.base).host;
  const payload = JSON.stringify([
    ["extensionDevelopmentPath", `vscode-remote://${auth}${ext}`],
    ["extensionTestsPath", `vscode-remote://${auth}${ext}/out-test/bench`],
  ]);
  // the suite's first-paint breakdown reads when the webview's frames came (bench.test.ts)
  const frames = join(run.w, "frames.jsonl");
  const logFrame = (ev) => (f) => appendFileSync(frames, JSON.stringify({ at: Date.now(), ev, url: f.url(), name: f.name() }) + "\n");
  page.on("frameattached", logFrame("attached"));
  page.on("framenavigated", logFrame("navigated"));
  const ctx = page.context();
  const logReq = (ev) => (r) => appendFileSync(frames, JSON.stringify({ at: Date.now(), ev, url: r.url(), sw: !!r.serviceWorker(), nav: r.isNavigationRequest() }) + "\n");
  ctx.on("request", logReq("req"));
  ctx.on("requestfinished", logReq("fin"));
  ctx.on("requestfailed", logReq("failed"));
  const done = new Promise((r) => page.exposeFunction("codeAutomationExit", (c) => r(c)));
  await page.goto(`${run.base}/?folder=${encodeURIComponent(run.dirs.ws)}&payload=${encodeURIComponent(payload)}`);
  const scroll = (async () => {
    while (!existsSync(join(run.w, "scroll-ready"))) await new Promise((r) => setTimeout(r, 100));
    const rows = page.locator("[id='workbench.view.extension.pi'] .monaco-list-row, .pane-body .monaco-list-row");
    await page.locator(".monaco-list-row", { hasText: "entries" }).first().waitFor({ timeout: 60000 });
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: "longtask" });
    });
    const box = await page.locator(".monaco-list-row", { hasText: "entries" }).first().boundingBox();
    await page.mouse.move(box.x + 50, box.y + 20);
    const t0 = Date.now();
    for (let i = 0; i < 60; i++) {
      await page.mouse.wheel(0, i < 30 ? 400 : -400);
      await page.waitForTimeout(30);
    }
    // expand three collapsed chunks while scrolling
    for (let i = 0; i < 3; i++) await page.locator(".monaco-list-row[aria-expanded='false']", { hasText: "entries" }).first().click().catch(() => undefined);
    await page.waitForTimeout(500);
    const long = await page.evaluate(() => window.__long);
    writeFileSync(join(run.w, "scroll-done"), JSON.stringify({ wheelSteps: 60, chunksExpanded: 3, seconds: (Date.now() - t0) / 1000, longTasks: long.length, longestMs: long.length ? Math.max(...long) : 0, rowsVisible: await rows.count() }));
  })();
  code = await Promise.race([done, new Promise((r) => setTimeout(() => r("timeout"), 400000))]);
  await scroll.catch((e) => console.error(e));
  if (existsSync(run.env.PI_BENCH_RESULT)) console.log(readFileSync(run.env.PI_BENCH_RESULT, "utf8"));
  else console.log(`no results (exit ${code})`);
} finally {
  run.stop();
}
process.exit(code === 0 ? 0 : 1);

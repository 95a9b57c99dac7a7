#!/usr/bin/env node
// The VS Code benchmarks (docs/benchmarks.md): code-server with the extension in development
// mode, the real daemon, the scripted provider; bench/suite runs in the extension host and
// hands over to this script to scroll the 22k-entry tree while long tasks are observed. A second
// window (a new code-server and browser) measures the chat's first paint with the chat in the
// pi container's Chat view (pi.chat.location "sidebar") instead of an editor tab.
// Run: make bench-vscode (or node bench/run.mjs in editors/vscode after npm run build).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setup, ext, repo } from "../test/harness.mjs";

const large = [process.env.PI_LSP_CONFORMANCE_DIR, join(repo, "..", "shared", "conformance", "pi-v0.58.3"), "/work/shared/conformance/pi-v0.58.3"]
  .filter(Boolean).map((d) => resolve(d, "sessions", "bench-large-20k.jsonl.gz")).find((f) => existsSync(f));
if (!large) throw new Error("bench-large-20k.jsonl.gz not found (set PI_LSP_CONFORMANCE_DIR)");
/** One window: the suite with the chat at `location`; `only` limits it (PI_BENCH_ONLY). */
async function benchWindow(location, only) {
  const run = await setup({ name: "bench" });
  run.env.PI_BENCH_DIR = run.w;
  run.env.PI_BENCH_RESULT = join(run.w, "bench.json");
  run.env.PI_BENCH_LARGE = large;
  run.env.PI_BENCH_LOCATION = location;
  if (only) run.env.PI_BENCH_ONLY = only;
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
    const scroll = only ? Promise.resolve() : (async () => {
      while (!existsSync(join(run.w, "scroll-ready"))) await new Promise((r) => setTimeout(r, 100));
      const rows = page.locator("[id='workbench.view.extension.pi'] .monaco-list-row, .pane-body .monaco-list-row");
      // a collapsed chunk of the 22k-entry run ("100 entries"); the suite revealed the first one
      const chunk = page.locator(".pane-body .monaco-list-row", { hasText: /^\d+ entries/ });
      try {
        await chunk.first().waitFor({ timeout: 60000 });
      } catch (err) {
        const texts = await page.locator(".monaco-list-row").evaluateAll((els) => els.map((e) => `${e.checkVisibility() ? "shown" : "hidden"}: ${e.textContent}`));
        throw new Error(`no chunk row in the tree: ${String(err)}\nrows: ${JSON.stringify(texts.slice(0, 40))}`);
      }
      await page.evaluate(() => {
        window.__long = [];
        // epoch milliseconds, the clock the runner stamps its steps with
        new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => ({ start: performance.timeOrigin + e.startTime, ms: e.duration })))).observe({ type: "longtask" });
      });
      // each step's start, so a long task can be put down to the step it fell in
      const steps = [];
      const mark = (name) => steps.push({ name, at: Date.now() });
      const box = await chunk.first().boundingBox();
      await page.mouse.move(box.x + 50, box.y + 20);
      const t0 = Date.now();
      for (let i = 0; i < 60; i++) {
        mark(`wheel ${i}`);
        await page.mouse.wheel(0, i < 30 ? 400 : -400);
        await page.waitForTimeout(30);
      }
      const wheelSeconds = (Date.now() - t0) / 1000;
      // expand three collapsed chunks while scrolling: the lowest one shown each time (its 100 rows
      // push those below it out of the virtualized list; the ones above stay)
      let expanded = 0;
      const collapsed = page.locator(".pane-body .monaco-list-row[aria-expanded='false']", { hasText: /^\d+ entries/ });
      for (let i = 0; i < 3; i++) {
        mark(`expand ${i}`);
        const before = await page.locator(".pane-body .monaco-list-row[aria-expanded='true']").count();
        if (!(await collapsed.last().click({ timeout: 10000 }).then(() => true, () => false))) continue;
        await page.waitForFunction((n) => document.querySelectorAll(".pane-body .monaco-list-row[aria-expanded='true']").length > n, before, { timeout: 10000 })
          .then(() => expanded++, () => undefined);
        await page.waitForTimeout(150);
      }
      mark("settle");
      await page.waitForTimeout(500);
      const long = await page.evaluate(() => window.__long);
      const during = (t) => [...steps].reverse().find((s) => s.at <= t)?.name ?? "before";
      writeFileSync(join(run.w, "scroll-done"), JSON.stringify({
        wheelSteps: 60, chunksExpanded: expanded, seconds: (Date.now() - t0) / 1000, wheelSeconds, longTasks: long.length,
        longestMs: long.length ? Math.max(...long.map((l) => l.ms)) : 0, rowsVisible: await rows.count(),
        tasks: long.map((l) => ({ ms: Math.round(l.ms), during: during(l.start) })),
      }));
    })();
    code = await Promise.race([done, new Promise((r) => setTimeout(() => r("timeout"), 400000))]);
    await scroll.catch(async (e) => {
      console.error(e);
      await page.screenshot({ path: join(run.w, "scroll-failed.png") }).catch(() => undefined);
      console.error(`screenshot: ${join(run.w, "scroll-failed.png")}`);
    });
    if (existsSync(run.env.PI_BENCH_RESULT)) console.log(readFileSync(run.env.PI_BENCH_RESULT, "utf8"));
    else console.log(`no results (exit ${code})`);
  } finally {
    run.stop();
  }
  return code;
}

const editor = await benchWindow("editor");
const sidebar = await benchWindow("sidebar", "firstPaint");
process.exit(editor === 0 && sidebar === 0 ? 0 : 1);

#!/usr/bin/env node
// The chat webview's own part of the first paint, in headless chromium without VS Code (so the
// figure is not code-server's webview set-up): a fresh page loads chat.js (→ its "ready"), then
// gets the reset the extension posts for a 1,000-message session (its last 200 entries) and
// reports the frame that shows it. `node bench/webview.mjs [other-chat.js]` also measures another
// build of chat.js, the runs interleaved, and prints both and their ratio. Figures only, no
// thresholds (docs/benchmarks.md). Build first: node scripts/build.mjs --production.
import { launchChromium, serveWebview } from "../test/webview/serve.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const other = process.argv[2];
const { base, close } = await serveWebview(other ? { "/other.js": other } : {});
const browser = await launchChromium();

/** The entries pi/session/messages gives for the bench suite's 1,000-message session. */
function entries(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const message = i % 2 === 0
      ? { role: "user", content: [{ type: "text", text: `Question ${i}: why does add(-1, 2) return 3?` }], timestamp: 1 }
      : { role: "assistant", content: [{ type: "text", text: `Answer ${i}.\n\n- it calls **abs()**\n- fix:\n\n\`\`\`python\ndef add(a, b):\n    return a + b\n\`\`\`` }],
          api: "openai-completions", provider: "openai", model: "fake-model", usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 2 };
    out.push({ type: "message", id: (0x10000000 + i).toString(16), parentId: i ? (0x10000000 + i - 1).toString(16) : null, message });
  }
  return out;
}
const page200 = entries(1000).slice(800);
const state = { sessionId: "s", sessionFile: null, sessionName: null, cwd: "/w", folder: "file:///w", model: { provider: "openai", modelId: "fake-model", contextWindow: 100000, reasoning: false }, thinkingLevel: "off", availableThinkingLevels: ["off"], leafId: page200.at(-1).id, isStreaming: false, isCompacting: false, steeringQueue: [], followUpQueue: [], contextUsage: null, entryCount: 1000, lastSeq: 0 };

async function once(script) {
  const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
  await page.addInitScript(() => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push({ ...m, now: performance.now() }), setState() {}, getState() {} });
  });
  await page.goto(script ? `${base}?script=${script}` : base);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === "ready"));
  const r = await page.evaluate(async ({ state, entries }) => {
    const ready = window.__posted.find((m) => m.type === "ready").now;
    const js = performance.getEntriesByType("resource").find((e) => /\/(chat|other)\.js/.test(e.name));
    const t0 = performance.now();
    window.postMessage({ type: "reset", state, entries, hasEarlier: true }, "*");
    for (;;) {
      const p = window.__posted.find((m) => m.type === "painted" && m.kind === "reset");
      if (p) return { scriptMs: ready - js.responseEnd, resetToPaintMs: p.at - (performance.timeOrigin + t0), itemsShown: document.querySelectorAll("#log .item").length };
      await new Promise((res) => setTimeout(res, 1));
    }
  }, { state, entries: page200 });
  // everything rendered in the end (the rest of the page after the first screen)
  await page.waitForFunction(() => document.querySelectorAll("#log .item").length === 200, null, { timeout: 10000 });
  await page.close();
  return r;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 10) / 10;
const results = { current: [], other: [] };
await once(); // warm-up (the browser's first page)
for (let i = 0; i < RUNS; i++) {
  results.current.push(await once());
  if (other) results.other.push(await once("/other.js"));
}
const summary = (rs) => ({ runs: rs.length, scriptMedianMs: round(median(rs.map((r) => r.scriptMs))), resetToPaintMedianMs: round(median(rs.map((r) => r.resetToPaintMs))), itemsAtFirstPaint: median(rs.map((r) => r.itemsShown)) });
const out = { current: summary(results.current) };
if (other) {
  out.other = summary(results.other);
  const ratio = (a, b) => Math.round((a / b) * 100) / 100;
  out.ratioCurrentToOther = { script: ratio(out.current.scriptMedianMs, out.other.scriptMedianMs), resetToPaint: ratio(out.current.resetToPaintMedianMs, out.other.resetToPaintMedianMs) };
}
console.log(JSON.stringify(out, null, 2));
await browser.close();
close();

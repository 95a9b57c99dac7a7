#!/usr/bin/env node
// The chat webview's own part of a first paint, in headless chromium without VS Code (so the
// figure is not code-server's webview set-up): a fresh page for a 1,000-message session (its
// last 200 entries) from the moment its HTML is in to the frame that shows the first screen.
// VS Code keeps a webview's frame hidden until its load event (the script loaded and run), so
// that frame is the first animation frame after `load` for a page whose HTML holds the first
// screen (src/chat/page.ts), or the frame after the reset the extension posts at `ready` for a
// page without it (the reset is posted at once here, without the extension host's round trip).
// `node bench/webview.mjs [old-media-dir]` also measures an older build (a media/ folder with
// its chat.html, chat.js, chat.css; its HTML gets no first screen), the runs interleaved, and
// prints both and their ratio. Figures only, no thresholds (docs/benchmarks.md). Build first:
// node scripts/build.mjs --production.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium, serveWebview } from "../test/webview/serve.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const oldDir = process.argv[2];

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
const reset = { type: "reset", state, entries: page200, hasEarlier: true };

const current = await serveWebview({}, () => reset);
/** An older build's media/ folder, its placeholders filled as that build's extension did. */
function serveOld(dir) {
  const html = readFileSync(join(dir, "chat.html"), "utf8").replaceAll("{{cspSource}}", "'self'").replaceAll("{{scriptUri}}", "/chat.js").replaceAll("{{styleUri}}", "/chat.css");
  const server = createServer((req, res) => {
    const file = { "/chat.js": "chat.js", "/chat.css": "chat.css" }[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(200, { "content-type": file ? (file.endsWith(".js") ? "text/javascript" : "text/css") : "text/html" });
    res.end(file ? readFileSync(join(dir, file)) : html);
  }).listen(0, "127.0.0.1");
  return new Promise((r) => server.once("listening", () => r({ base: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() })));
}
const old = oldDir ? await serveOld(oldDir) : null;
const browser = await launchChromium();

async function once(base) {
  const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
  await page.addInitScript((reset) => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({
      postMessage: (m) => {
        window.__posted.push({ ...m, now: performance.now() });
        // the extension's answer to a page without its first screen
        if (m.type === "ready" && !m.initial) window.postMessage(reset, "*");
      },
    });
    window.addEventListener("load", () => requestAnimationFrame(() => (window.__loadFrame = performance.now())));
  }, reset);
  await page.goto(base);
  await page.waitForFunction(() => window.__loadFrame !== undefined && window.__posted.some((m) => m.type === "painted" && m.kind === "reset"));
  const r = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const js = performance.getEntriesByType("resource").find((e) => /\/chat\.js/.test(e.name));
    const ready = window.__posted.find((m) => m.type === "ready").now;
    const p = window.__posted.find((m) => m.type === "painted" && m.kind === "reset");
    const shownAt = Math.max(window.__loadFrame, p.at - performance.timeOrigin);
    return { firstScreenMs: shownAt - nav.responseEnd, scriptMs: ready - js.responseEnd, shown: p.shown, prerendered: !!p.prerendered };
  });
  // everything rendered in the end (the rest of the page after the first screen)
  await page.waitForFunction(() => document.querySelectorAll("#log .item").length === 200, null, { timeout: 10000 });
  await page.close();
  return r;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 10) / 10;
const results = { current: [], old: [] };
await once(current.base); // warm-up (the browser's first page)
for (let i = 0; i < RUNS; i++) {
  results.current.push(await once(current.base));
  if (old) results.old.push(await once(old.base));
}
const summary = (rs) => ({ runs: rs.length, firstScreenMedianMs: round(median(rs.map((r) => r.firstScreenMs))), scriptMedianMs: round(median(rs.map((r) => r.scriptMs))), itemsAtFirstPaint: median(rs.map((r) => r.shown)), firstScreenInHtml: rs.every((r) => r.prerendered) });
const out = { current: summary(results.current) };
if (old) {
  out.old = summary(results.old);
  const ratio = (a, b) => Math.round((a / b) * 100) / 100;
  out.ratioCurrentToOld = { firstScreen: ratio(out.current.firstScreenMedianMs, out.old.firstScreenMedianMs), script: ratio(out.current.scriptMedianMs, out.old.scriptMedianMs) };
}
console.log(JSON.stringify(out, null, 2));
await browser.close();
current.close();
old?.close();

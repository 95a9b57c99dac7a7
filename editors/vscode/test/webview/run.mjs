#!/usr/bin/env node
// The chat webview alone in headless Chromium (Debian's /usr/bin/chromium, playwright-core):
// media/chat.html served with its real CSP ('self' for script and styles), acquireVsCodeApi
// mocked, the daemon's captured event sequences (test/fixtures) posted as the extension would.
// Checks rendering, streaming, tool cards, the permission prompt, every message action's
// posted message, paging, and that no page or CSP error happened. Prints "N passed, N failed".
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { checks } from "../checks.mjs";
import { launchChromium, root, serveWebview } from "./serve.mjs";

const shots = join(root, "test-results");
mkdirSync(shots, { recursive: true });
const fixture = (name) => JSON.parse(readFileSync(join(root, "test", "fixtures", `${name}.json`), "utf8"));
// `?first=big`: the page comes with a 200-entry session's first screen in its HTML, as the
// extension creates a panel for a known session (src/chat/page.ts)
const bigEntries = [];
for (let i = 0; i < 450; i++) bigEntries.push({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: "", message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: i % 2 ? `answer ${i} with \`code\` & <b>no html</b>` : `message ${i}` }] } });
let firstState = null;
const { base, close } = await serveWebview({}, (url) =>
  url.searchParams.get("first") === "big" ? { type: "reset", state: firstState, entries: bigEntries.slice(250), hasEarlier: true } : null);

const { check, finish } = checks();
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const browser = await launchChromium();
const errors = [];
const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
page.on("console", (m) => {
  if (m.type() === "error") errors.push(`console: ${m.text()}`);
});
await page.addInitScript(() => {
  window.__posted = [];
  window.__piRendered = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), setState() {}, getState() {} });
});
await page.goto(base);
// what the page posted, less its "painted" reports (checked on their own)
let paints = [];
const posted = async () => {
  const all = await page.evaluate(() => window.__posted.splice(0));
  paints.push(...all.filter((m) => m.type === "painted"));
  return all.filter((m) => m.type !== "painted");
};
// resolves once the page has handled the message (its listener runs before this one)
const send = (m) =>
  page.evaluate((x) => new Promise((r) => {
    window.addEventListener("message", () => setTimeout(r, 0), { once: true });
    window.postMessage(x, "*");
  }), m);

const turn = fixture("turn");
const state = turn.events.find((e) => e.event.type === "state_changed").event.state;
firstState = { ...state, sessionName: "Big & <old> session" };

await check("the page says it is ready", async () => {
  const p = await posted();
  assert(p.some((m) => m.type === "ready"), JSON.stringify(p));
});

await check("Enter sends the prompt, Shift+Enter makes a new line", async () => {
  await page.fill("#input", "first line");
  await page.press("#input", "Shift+Enter");
  await page.type("#input", "second line");
  await page.press("#input", "Enter");
  const p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([{ type: "send", text: "first line\nsecond line", mode: "prompt" }]), JSON.stringify(p));
  assert((await page.inputValue("#input")) === "", "input cleared");
});

await check("the captured turn streams into the panel: text, thinking, tool cards, edit diff", async () => {
  await send({ type: "reset", state, entries: turn.messagesBefore.entries, hasEarlier: false });
  let sawPartial = false;
  for (const n of turn.events) {
    await send({ type: "event", event: n.event, seq: n.seq });
    if (n.event.type === "message_update" && n.event.assistantMessageEvent.type === "text_delta" && !sawPartial) {
      const t = await page.locator("#log .item.assistant .md").last().textContent();
      sawPartial = t.length > 0 && !t.includes("Reading calc.py.");
    }
  }
  assert(sawPartial, "a partial text was on screen while streaming");
  const users = await page.locator("#log .item.user").count();
  assert(users === 1, `one user message, got ${users}`);
  assert((await page.locator("#log .item.user .text").textContent()) === "Why does add(-1, 2) return 3?", "user text");
  assert(await page.locator("#log .md strong", { hasText: "calc.py" }).count(), "markdown rendered (bold)");
  assert(await page.locator("#log details.thinking").count() === 1, "thinking collapsible");
  assert(!(await page.locator("#log details.thinking").evaluate((d) => d.open)), "thinking collapsed");
  const cards = await page.locator("#log .tool").evaluateAll((els) => els.map((e) => [e.querySelector(".tool-name").textContent, e.querySelector(".status").textContent]));
  assert(JSON.stringify(cards) === JSON.stringify([["read", "done"], ["edit", "done"], ["bash", "done"]]), JSON.stringify(cards));
  assert(await page.locator("#log .tool .diff .del").count() > 0, "edit diff shown");
  assert(await page.locator("#log .hljs-keyword").count() > 0, "code highlighted");
  assert(await page.locator("#log .item.changes .path", { hasText: "calc.py" }).count() === 1, "changed files listed");
  const ids = await page.locator("#log .item[data-entry-id]").evaluateAll((els) => els.map((e) => e.dataset.entryId));
  const stored = turn.messagesAfter.entries.filter((e) => e.type === "message" && e.message.role !== "toolResult").map((e) => e.id);
  assert(JSON.stringify(ids) === JSON.stringify(stored), `data-entry-id ${ids} vs ${stored}`);
  await page.screenshot({ path: join(shots, "webview-chat.png") });
  await posted();
  const reset = paints.find((m) => m.kind === "reset");
  assert(reset && reset.items === 0 && typeof reset.at === "number", `painted after the reset: ${JSON.stringify(paints)}`);
  assert(!paints.some((m) => m.kind === "event"), "no per-event reports outside bench mode");
});

await check("message actions post the right messages", async () => {
  await posted();
  const user = page.locator("#log .item.user").first();
  const userId = await user.getAttribute("data-entry-id");
  await user.hover();
  for (const [label, action] of [["Edit & branch", "editAndBranch"], ["Branch from here", "branch"], ["Label…", "label"], ["Fork", "fork"]]) {
    await user.locator("button", { hasText: label }).click();
    const p = await posted();
    assert(JSON.stringify(p) === JSON.stringify([{ type: "action", action, entryId: userId }]), `${label}: ${JSON.stringify(p)}`);
  }
  await user.locator("button", { hasText: "Copy" }).click();
  let p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([{ type: "action", action: "copy", entryId: userId, text: "Why does add(-1, 2) return 3?" }]), JSON.stringify(p));
  const assistant = page.locator("#log .item.assistant").last();
  await assistant.hover();
  assert(await assistant.locator("button", { hasText: "Edit & branch" }).count() === 0, "no Edit & branch on assistant messages");
  await assistant.locator(".actions button", { hasText: "Branch from here" }).click();
  p = await posted();
  assert(p[0].action === "branch" && p[0].entryId === (await assistant.getAttribute("data-entry-id")), JSON.stringify(p));
  await assistant.locator(".copy-code").click();
  p = await posted();
  assert(p[0].type === "copy" && p[0].text === "return a + b\n", JSON.stringify(p));
  await page.locator("#log .item.changes button", { hasText: "Open diff" }).click();
  p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([{ type: "openDiff", path: "calc.py" }]), JSON.stringify(p));
  for (const [sel, command] of [["#model", "pickModel"], ["#thinking", "pickThinking"], ["#compact", "compact"], ["#new", "newSession"], ["#tree", "showTree"], ["#name", "rename"]]) {
    await page.click(sel);
    p = await posted();
    assert(JSON.stringify(p) === JSON.stringify([{ type: "command", command }]), `${sel}: ${JSON.stringify(p)}`);
  }
});

await check("permission: shown with the three answers; the answer is posted and the prompt goes", async () => {
  const req = turn.serverRequests.find((r) => r.method === "pi/requestPermission").params;
  await send({ type: "permission", request: { requestId: "perm-1", kind: req.kind, toolName: req.toolName, toolCallId: req.toolCallId, detail: req.detail } });
  const box = page.locator("#permissions .permission");
  await box.waitFor();
  assert((await box.locator(".detail").textContent()) === "echo tests pass", "detail");
  assert(JSON.stringify(await box.locator("button").allTextContents()) === JSON.stringify(["Allow once", "Allow for this session", "Deny"]), "buttons");
  await page.screenshot({ path: join(shots, "webview-permission.png") });
  await box.locator("button", { hasText: "Allow for this session" }).click();
  const p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([{ type: "permissionAnswer", requestId: "perm-1", decision: "allowSession" }]), JSON.stringify(p));
  assert((await page.locator("#permissions .permission").count()) === 0, "prompt removed");
  await send({ type: "permission", request: { requestId: "perm-2", kind: "bash", toolName: "bash", toolCallId: "c9", detail: "rm -rf build" } });
  await send({ type: "permissionClosed", requestId: "perm-2", note: "No answer to \"rm -rf build\" within 120 s: denied." });
  assert((await page.locator("#permissions .permission").count()) === 0, "timed-out prompt removed");
  assert(await page.locator("#log .item.notice", { hasText: "within 120 s: denied" }).count() === 1, "timeout note visible");
});

await check("while streaming: Steer, Follow-up and Stop; queued messages shown", async () => {
  const abort = fixture("abort");
  await send({ type: "reset", state: { ...state, isStreaming: true, steeringQueue: ["Shorter"], followUpQueue: ["Then a test"] }, entries: abort.messagesBefore.entries, hasEarlier: false });
  assert(await page.locator("#stop").isVisible(), "Stop visible");
  assert(!(await page.locator("#send").isVisible()), "Send hidden while streaming");
  assert(await page.locator("#queue .queued.steer", { hasText: "Shorter" }).count() === 1, "steer queue shown");
  assert(await page.locator("#queue .queued.followup", { hasText: "Then a test" }).count() === 1, "follow-up queue shown");
  await page.fill("#input", "focus on tests");
  await page.click("#followup");
  await page.fill("#input", "be brief");
  await page.click("#steer");
  await page.fill("#input", "enter steers");
  await page.press("#input", "Enter");
  await page.click("#stop");
  const p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([
    { type: "send", text: "focus on tests", mode: "followUp" },
    { type: "send", text: "be brief", mode: "steer" },
    { type: "send", text: "enter steers", mode: "steer" },
    { type: "abort" },
  ]), JSON.stringify(p));
  for (const n of abort.events) await send({ type: "event", event: n.event });
  assert(await page.locator("#log .item.assistant .note", { hasText: "Stopped." }).count() === 1, "aborted reply marked");
  assert(await page.locator("#send").isVisible(), "Send back after the turn");
});

await check("compaction and branch summary are items with their summaries on expand", async () => {
  const compact = fixture("compact");
  await send({ type: "reset", state, entries: compact.messagesBefore.entries, hasEarlier: false });
  for (const n of compact.events) await send({ type: "event", event: n.event });
  const item = page.locator("#log .item.compaction").last();
  assert(/Compacted: \d+ tokens/.test(await item.locator("summary").textContent()), "compaction header");
  assert(!(await item.locator(".md").isVisible()), "summary collapsed");
  await item.locator("summary").click();
  assert(await item.locator(".md", { hasText: "Fix add()" }).isVisible(), "summary on expand");
  assert(await item.getAttribute("data-entry-id"), "compaction has its entry id");
  const branch = fixture("branch");
  await send({ type: "reset", state, entries: branch.messagesAfter.entries, hasEarlier: false });
  assert(await page.locator("#log .item.branchSummary summary", { hasText: "Summary of the branch left" }).count() === 1, "branch summary item");
});

await check("another program's entries during the turn (foreign_entries, captured): a note with the count, Show in tree and Switch", async () => {
  const foreign = fixture("foreign");
  await send({ type: "reset", state, entries: foreign.messagesBefore.entries, hasEarlier: false });
  for (const n of foreign.events) await send({ type: "event", event: n.event, seq: n.seq });
  const told = foreign.events.map((n) => n.event).find((e) => e.type === "foreign_entries");
  const note = page.locator("#log .item.foreign");
  assert((await note.count()) === 1, "one note");
  assert(/appended 2 entries/.test(await note.textContent()), await note.textContent());
  assert(!(await page.locator("#log .item.user .text", { hasText: "A question from the CLI" }).count()), "their messages are not in this chat");
  await posted();
  await note.locator("button", { hasText: "Show in tree" }).click();
  await note.locator("button", { hasText: "Switch to that branch" }).click();
  const p = await posted();
  const tip = told.entryIds.at(-1);
  assert(JSON.stringify(p) === JSON.stringify([{ type: "reveal", entryId: tip }, { type: "action", action: "branch", entryId: tip }]), JSON.stringify(p));
  await page.screenshot({ path: join(shots, "webview-foreign.png") });
});

await check("setInput fills the box (Edit & branch), header shows name, model, meter", async () => {
  await send({ type: "setInput", text: "Why does add(-1, 2) return 3?" });
  assert((await page.inputValue("#input")) === "Why does add(-1, 2) return 3?", "input");
  await send({ type: "event", event: { type: "state_changed", state: { ...state, sessionName: "Fix add()", contextUsage: { tokens: 5000, contextWindow: 100000, percent: 5 } } } });
  assert((await page.textContent("#name")) === "Fix add()", "name");
  assert((await page.textContent("#model")) === "openai/fake-model", "model");
  assert(/5000 \/ 100000 tokens \(5\.0%\)/.test(await page.textContent("#meter")), await page.textContent("#meter"));
  // a chat as narrow as a tab beside the code: the name and the model are shown whole (the
  // pickers move to a line of their own), not cut to "Fix a…" and "openai/fa…"
  await page.setViewportSize({ width: 420, height: 900 });
  try {
    const cut = await page.evaluate(() => ["#name", "#model", "#thinking", "#new"].filter((sel) => {
      const e = document.querySelector(sel);
      const r = e.getBoundingClientRect();
      return e.scrollWidth > e.clientWidth || r.right > document.documentElement.clientWidth;
    }));
    assert(cut.length === 0, `cut or off screen at 420 px: ${cut.join(", ")}`);
  } finally {
    await page.setViewportSize({ width: 900, height: 900 });
  }
});

await check("an edit the editor refused as stale: an open error card with the daemon's reason, no file listed", async () => {
  const stale = fixture("stale");
  await send({ type: "reset", state, entries: stale.messagesBefore.entries, hasEarlier: false });
  for (const n of stale.events) await send({ type: "event", event: n.event, seq: n.seq });
  const card = page.locator("#log .tool.error", { hasText: "edit" });
  assert((await card.count()) === 1, `error cards: ${await card.count()}`);
  assert(await card.evaluate((d) => d.open), "the error card is open");
  assert((await card.locator(".status").textContent()) === "error", "status error");
  const out = await card.locator(".output").textContent();
  assert(/The editor refused the change to .*calc\.py/.test(out), out);
  assert(!(await page.locator("#log .item.changes").count()), "no changed-files list for an edit that changed nothing");
  await page.screenshot({ path: join(shots, "webview-stale-edit.png") });
});

await check("unknown and malformed messages are ignored; the panel keeps working", async () => {
  await send({ type: "event", event: { type: "brand_new_event" } });
  await send({ type: "nonsense" });
  await send(null);
  await send({ type: "event", event: { type: "message_start", message: { role: "assistant", content: [] } } });
  await send({ type: "event", event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "still alive" } } });
  assert(await page.locator("#log .item.assistant .md", { hasText: "still alive" }).count() === 1, "rendered after bad input");
});

await check("a big session is paged: the last page first, earlier pages on request", async () => {
  const entries = [];
  for (let i = 0; i < 450; i++) entries.push({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: "", message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i}` }] } });
  await send({ type: "reset", state, entries: entries.slice(250), hasEarlier: true });
  // the first screen first (the newest 30), then the rest of the page above it, the view kept at the bottom
  await page.waitForFunction(() => document.querySelectorAll("#log .item").length === 200 && document.querySelector("button[data-earlier]"));
  await posted();
  const paint = paints.filter((m) => m.kind === "reset").at(-1);
  assert(paint.items === 200 && paint.shown === 30, `first paint: ${paint.shown} of ${paint.items} items`);
  assert((await page.locator("#log .item").last().getAttribute("data-entry-id")) === "e449", "the newest at the bottom");
  const atBottom = await page.evaluate(() => { const l = document.querySelector("#log"); return l.scrollHeight - l.scrollTop - l.clientHeight < 40; });
  assert(atBottom, "still scrolled to the newest message");
  await page.click("button[data-earlier]");
  const p = await posted();
  assert(JSON.stringify(p) === JSON.stringify([{ type: "loadEarlier" }]), JSON.stringify(p));
  await send({ type: "earlier", entries: entries.slice(50, 250), hasEarlier: true });
  assert((await page.locator("#log .item").count()) === 400, "400 items");
  assert((await page.locator("#log .item").first().getAttribute("data-entry-id")) === "e50", "oldest first");
});

await check("a panel created for a known session shows its first screen from the HTML, before and without chat.js", async () => {
  // without scripts at all: the first screen, its entry ids and the header are in the HTML
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const bare = await ctx.newPage();
  await bare.goto(`${base}?first=big`);
  const ids = await bare.locator("#log .item").evaluateAll((els) => els.map((e) => e.dataset.entryId));
  assert(ids.length === 30 && ids[0] === "e420" && ids.at(-1) === "e449", `prerendered ${ids.length}: ${ids[0]}…${ids.at(-1)}`);
  assert((await bare.locator("#name").textContent()) === "Big & <old> session", "header name (escaped)");
  assert((await bare.locator("#model").textContent()) === `${state.model.provider}/${state.model.modelId}`, "header model");
  assert(await bare.locator("#log .md code", { hasText: "code" }).count() === 15, "markdown rendered");
  assert(!(await bare.locator("#log b").count()), "raw HTML in a message stays text");
  assert(await bare.locator("#log .item.user .actions button[data-action='editAndBranch']").count() === 15, "actions rendered");
  await ctx.close();
  // with chat.js: it adopts those elements (no reset needed), fills in the older ones, and works
  const p4 = await browser.newPage();
  const errs = [];
  p4.on("pageerror", (e) => errs.push(e.message));
  p4.on("console", (m) => m.type() === "error" && errs.push(m.text()));
  await p4.addInitScript(() => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });
  });
  // hold chat.js back: the first screen is there (and painted) while the script is still loading
  let release;
  const held = new Promise((r) => (release = r));
  await p4.route("**/chat.js", async (route) => {
    await held;
    await route.continue();
  });
  const loading = p4.goto(`${base}?first=big`);
  await p4.locator("#log .item[data-entry-id='e449']").waitFor({ state: "visible", timeout: 10000 });
  const early = await p4.evaluate(() => {
    for (const n of document.querySelectorAll("#log .item")) n.dataset.fromHtml = "1";
    return { items: document.querySelectorAll("#log .item").length, posted: window.__posted.length };
  });
  assert(early.items === 30 && early.posted === 0, `shown before chat.js ran: ${JSON.stringify(early)}`);
  release();
  await loading;
  await p4.waitForFunction(() => document.querySelectorAll("#log .item").length === 200 && document.querySelector("button[data-earlier]"));
  const posted4 = await p4.evaluate(() => window.__posted.splice(0));
  const ready = posted4.find((m) => m.type === "ready");
  assert(ready && ready.initial === true, `ready says the HTML held the page: ${JSON.stringify(ready)}`);
  const paint = posted4.find((m) => m.type === "painted" && m.kind === "reset");
  assert(paint && paint.prerendered && paint.items === 200 && paint.shown === 30, `painted: ${JSON.stringify(paint)}`);
  assert(typeof paint.firstContentfulPaint === "number" && paint.firstContentfulPaint <= paint.at, "first contentful paint reported");
  assert((await p4.locator("#log .item[data-from-html]").count()) === 30, "the HTML's 30 elements kept, not redrawn");
  assert((await p4.locator("#log .item").first().getAttribute("data-entry-id")) === "e250", "older items filled in above");
  const atBottom = await p4.evaluate(() => { const l = document.querySelector("#log"); return l.scrollHeight - l.scrollTop - l.clientHeight < 40; });
  assert(atBottom, "scrolled to the newest message");
  await p4.locator("#log .item[data-entry-id='e448']").hover();
  await p4.locator("#log .item[data-entry-id='e448'] button", { hasText: "Branch from here" }).click();
  const acts = await p4.evaluate(() => window.__posted.splice(0));
  assert(JSON.stringify(acts) === JSON.stringify([{ type: "action", action: "branch", entryId: "e448" }]), JSON.stringify(acts));
  // a later event updates an adopted item in place
  await p4.evaluate(() => window.postMessage({ type: "event", seq: 1, event: { type: "message_start", message: { role: "assistant", content: [] } } }, "*"));
  await p4.evaluate(() => window.postMessage({ type: "event", seq: 2, event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "new reply" } } }, "*"));
  await p4.locator("#log .item.assistant .md", { hasText: "new reply" }).waitFor({ timeout: 5000 });
  assert((await p4.locator("#name").textContent()) === "Big & <old> session", "header kept");
  assert(!errs.length, `no page or CSP errors (the JSON data block is not a script): ${errs.join("\n")}`);
  await p4.close();
});

await check("code is coloured after the first paint: plain (marked) in that frame, highlighted next", async () => {
  const p3 = await browser.newPage();
  const errs = [];
  p3.on("pageerror", (e) => errs.push(e.message));
  p3.on("console", (m) => m.type() === "error" && errs.push(m.text()));
  await p3.addInitScript(() => (window.acquireVsCodeApi = () => ({ postMessage() {} })));
  await p3.goto(base);
  const code = { role: "assistant", content: [{ type: "text", text: "```python\ndef add(a, b):\n    return a + b\n```" }] };
  const atFirstPaint = await p3.evaluate((entries) => {
    window.postMessage({ type: "reset", state: null, entries, hasEarlier: false }, "*");
    return new Promise((r) => window.addEventListener("message", () => requestAnimationFrame(() => r(document.querySelectorAll("#log code[data-lang]").length)), { once: true }));
  }, [{ type: "message", id: "c1", parentId: null, message: code }]);
  assert(atFirstPaint === 1, `marked for later colouring in the first frame: ${atFirstPaint}`);
  await p3.locator("#log code.language-python .hljs-keyword").first().waitFor({ timeout: 5000 });
  assert(!(await p3.locator("#log code[data-lang]").count()), "nothing left uncoloured");
  assert(!errs.length, errs.join("\n"));
  await p3.close();
});

await check("no page errors and no CSP violations", async () => {
  const real = errors.filter((e) => !e.includes("pi chat:"));
  assert(real.length === 0, real.join("\n"));
});

await check("an inline script would be refused by the CSP (the check above can fail)", async () => {
  const p2 = await browser.newPage();
  const errs = [];
  p2.on("console", (m) => m.type() === "error" && errs.push(m.text()));
  await p2.addInitScript(() => (window.acquireVsCodeApi = () => ({ postMessage() {} })));
  await p2.goto(base);
  await p2.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__inline = 1";
    document.body.append(s);
  });
  assert(!(await p2.evaluate(() => window.__inline)), "inline script ran");
  assert(errs.some((e) => /Content Security Policy/.test(e)), `CSP message: ${errs}`);
  await p2.close();
});

await browser.close();
close();
finish();

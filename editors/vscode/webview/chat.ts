// The chat webview: renders the ChatModel (src/chat/model.ts) and turns clicks and keys into
// FromWebview messages. Bundled by esbuild into media/chat.js (no inline script: the CSP allows
// only the extension's own files). Runs in VS Code or, for the tests, in plain Chromium with a
// mocked acquireVsCodeApi.
import { scriptStart } from "./start";
import { ChatModel, type Change, type ChatItem } from "../src/chat/model";
import type { FromWebview, ToWebview } from "../src/chat/messages";
import { chromeText, FIRST_SCREEN, itemHtml } from "../src/chat/render";
import { enableHighlighting } from "./highlight";

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: FromWebview): void => vscode.postMessage(m);

const model = new ChatModel();
const $ = <T extends HTMLElement>(sel: string): T => document.querySelector(sel) as T;
const log = $("#log");
const input = $<HTMLTextAreaElement>("#input");
let hasEarlier = false;

function el(tag: string, cls?: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label: string, data: Record<string, string>, title?: string): HTMLButtonElement {
  const b = el("button", "act", label) as HTMLButtonElement;
  for (const [k, v] of Object.entries(data)) b.dataset[k] = v;
  if (title) b.title = title;
  return b;
}

/** Tool cards the user opened or closed (kept across re-renders); others follow their status. */
const toolOpen = new Map<string, boolean>();
document.addEventListener("click", (e) => {
  const summary = (e.target as HTMLElement).closest("summary");
  const d = summary?.parentElement as HTMLDetailsElement | undefined;
  if (d?.classList.contains("tool") && d.dataset.toolId) toolOpen.set(d.dataset.toolId, !d.open);
});

const template = document.createElement("template");
/** An item's element, from the renderer the extension also uses for a panel's first screen. */
function renderItem(item: ChatItem): HTMLElement {
  template.innerHTML = itemHtml(item, model.tools, (id) => toolOpen.get(id));
  return template.content.firstElementChild as HTMLElement;
}

const nodes = new Map<number, HTMLElement>();

/** A reset renders its newest FIRST_SCREEN items before its first paint (more than a screen);
 * the older ones of the page follow in chunks of FILL_CHUNK, one task each, above them. */
const FILL_CHUNK = 40;
/** Keys of the reset's items not rendered yet, oldest first (updates to them wait for the fill). */
let unrendered: number[] = [];
let fillGeneration = 0;

function earlierButton(): void {
  if (hasEarlier) log.prepend(button("Load earlier messages", { earlier: "1" }));
}

/** Render the reset's older items above the first screen, newest first, keeping the view still. */
function fill(generation: number): void {
  if (generation !== fillGeneration) return; // a newer reset took over
  const chunk = unrendered.splice(Math.max(0, unrendered.length - FILL_CHUNK));
  const part = document.createDocumentFragment();
  for (const key of chunk) {
    const item = model.item(key);
    if (!item) continue;
    const n = renderItem(item);
    nodes.set(key, n);
    part.append(n);
  }
  const fromBottom = log.scrollHeight - log.scrollTop;
  log.prepend(part);
  log.scrollTop = log.scrollHeight - fromBottom;
  if (unrendered.length) setTimeout(() => fill(generation), 0);
  else earlierButton();
}

/** Show a change; a reset paints its newest FIRST_SCREEN items at once unless `whole` (Load
 * earlier, where the user looks at the top). `prerendered`: those items are in the page's HTML
 * already (the extension rendered them with the same renderer); they are adopted, not redrawn. */
function render(ch: Change, whole = false, prerendered = false): void {
  if (ch.ignored) console.warn(`pi chat: ${ch.ignored}`);
  const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  if (ch.reset) {
    nodes.clear();
    const generation = ++fillGeneration;
    const split = whole ? 0 : Math.max(0, model.items.length - FIRST_SCREEN);
    unrendered = model.items.slice(0, split).map((item) => item.key);
    if (prerendered) {
      for (const n of log.querySelectorAll<HTMLElement>(":scope > .item")) nodes.set(Number(n.dataset.key), n);
    } else {
      log.textContent = "";
      for (const item of model.items.slice(split)) {
        const n = renderItem(item);
        nodes.set(item.key, n);
        log.append(n);
      }
    }
    // the rest after the first frame is on screen
    if (unrendered.length) requestAnimationFrame(() => setTimeout(() => fill(generation), 0));
    else earlierButton();
  } else {
    const keys = new Set(ch.items);
    for (const id of ch.tools) {
      const owner = [...model.items].reverse().find((it) => it.kind === "assistant" && it.blocks.some((b) => b.type === "toolCall" && b.id === id));
      if (owner) keys.add(owner.key);
    }
    for (const key of keys) {
      const item = model.item(key);
      if (!item || unrendered.includes(key)) continue; // the fill renders it as it is then
      const fresh = renderItem(item);
      const old = nodes.get(key);
      if (old) {
        // keep the user's open/closed choice of thinking and summary boxes
        const open = [...old.querySelectorAll("details:not(.tool)")].map((d) => (d as HTMLDetailsElement).open);
        fresh.querySelectorAll("details:not(.tool)").forEach((d, i) => {
          if (i < open.length) (d as HTMLDetailsElement).open = open[i];
        });
        old.replaceWith(fresh);
      } else log.append(fresh);
      nodes.set(key, fresh);
    }
  }
  if (ch.header || ch.reset) renderChrome();
  if (stick || ch.reset) log.scrollTop = log.scrollHeight;
}

function renderChrome(): void {
  const s = model.state;
  const t = chromeText(model);
  $("#name").textContent = t.name;
  $("#model").textContent = t.model;
  $("#thinking").textContent = t.thinking;
  $("#meter").textContent = t.meter;
  $("#meter-bar").style.width = `${t.percent}%`;
  document.body.classList.toggle("streaming", model.streaming);
  document.body.classList.toggle("compacting", model.compacting);
  const queue = $("#queue");
  queue.textContent = "";
  for (const t of s?.steeringQueue ?? []) queue.append(el("div", "queued steer", `Steer (queued): ${t}`));
  for (const t of s?.followUpQueue ?? []) queue.append(el("div", "queued followup", `Follow-up (queued): ${t}`));
  const perms = $("#permissions");
  perms.textContent = "";
  for (const p of model.permissions) {
    const box = el("div", "permission");
    box.dataset.requestId = p.requestId;
    box.append(el("div", "what", p.kind === "bash" ? `Run this command?` : `Write outside the workspace?`), el("pre", "detail", p.detail));
    box.append(
      button("Allow once", { decision: "allowOnce" }),
      button("Allow for this session", { decision: "allowSession" }),
      button("Deny", { decision: "deny" }),
    );
    perms.append(box);
  }
}

function send(mode: "prompt" | "steer" | "followUp"): void {
  const text = input.value;
  if (!text.trim()) return;
  post({ type: "send", text, mode: model.streaming && mode === "prompt" ? "steer" : mode });
  input.value = "";
}

input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send("prompt");
  }
});
$("#send").addEventListener("click", () => send("prompt"));
$("#steer").addEventListener("click", () => send("steer"));
$("#followup").addEventListener("click", () => send("followUp"));
$("#stop").addEventListener("click", () => post({ type: "abort" }));
for (const [id, command] of [["#model", "pickModel"], ["#thinking", "pickThinking"], ["#compact", "compact"], ["#new", "newSession"], ["#tree", "showTree"], ["#name", "rename"]] as const) {
  $(id).addEventListener("click", () => post({ type: "command", command }));
}

document.addEventListener("click", (e) => {
  const b = (e.target as HTMLElement).closest("button") as HTMLButtonElement | null;
  if (!b) return;
  if (b.dataset.decision) {
    const box = b.closest(".permission") as HTMLElement;
    post({ type: "permissionAnswer", requestId: box.dataset.requestId ?? "", decision: b.dataset.decision as "allowOnce" });
    render(model.closePermission(box.dataset.requestId ?? ""));
  } else if (b.dataset.action) {
    const item = b.closest(".item") as HTMLElement;
    const entryId = item.dataset.entryId ?? "";
    const action = b.dataset.action as "copy";
    const found = model.items.find((it) => it.entryId === entryId);
    const text = action === "copy" && found ? itemText(found) : undefined;
    post({ type: "action", action, entryId, ...(text !== undefined ? { text } : {}) });
  } else if (b.dataset.tree) {
    post({ type: "reveal", entryId: b.dataset.tree });
  } else if (b.dataset.foreign) {
    post({ type: "action", action: "branch", entryId: b.dataset.foreign });
  } else if (b.dataset.diff) {
    post({ type: "openDiff", path: b.dataset.diff });
  } else if (b.dataset.earlier) {
    post({ type: "loadEarlier" });
  } else if (b.classList.contains("copy-code")) {
    post({ type: "copy", text: b.parentElement?.querySelector("code")?.textContent ?? "" });
  }
});

function itemText(item: ChatItem): string {
  if (item.kind === "user" || item.kind === "custom") return item.text;
  if (item.kind === "assistant") return item.blocks.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n\n");
  if (item.kind === "compaction" || item.kind === "branchSummary") return item.summary;
  if (item.kind === "bash") return `$ ${item.command}\n${item.output}`;
  return "";
}

let benchEvents = false;
/** Report the frame that shows a change (after the DOM update, at the next animation frame); for
 * the HTML's own first page, once the browser reports its first contentful paint (or after 1 s,
 * e.g. when the panel is hidden and nothing paints), with that paint's time. */
function painted(kind: "reset" | "event" | "frame", seq?: number, prerendered = false): void {
  requestAnimationFrame(() => {
    const report = { type: "painted", kind, ...(seq !== undefined ? { seq } : {}), at: performance.timeOrigin + performance.now(), items: model.items.length, shown: nodes.size } as const;
    loadHighlighter();
    if (!prerendered) return post(report);
    let sent = false;
    const send = (fcp?: number): void => {
      if (sent) return;
      sent = true;
      observer.disconnect();
      post({ ...report, prerendered, ...(fcp !== undefined ? { firstContentfulPaint: performance.timeOrigin + fcp } : {}) });
    };
    const observer = new PerformanceObserver((list) => {
      const fcp = list.getEntriesByName("first-contentful-paint")[0];
      if (fcp) send(fcp.startTime);
    });
    observer.observe({ type: "paint", buffered: true });
    setTimeout(() => send(), 1000);
  });
}

/** Code is coloured after the first paint (markdown.ts): the grammars are set up then. */
let highlighterRequested = false;
function loadHighlighter(): void {
  if (highlighterRequested) return;
  highlighterRequested = true;
  setTimeout(() => void enableHighlighting(log), 0);
}

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as ToWebview;
  if (!m || typeof m !== "object") return;
  switch (m.type) {
    case "reset":
      hasEarlier = m.hasEarlier;
      render(model.load(m.entries, m.state));
      painted("reset");
      break;
    case "earlier":
      hasEarlier = m.hasEarlier;
      render(model.prepend(m.entries), true);
      log.scrollTop = 0;
      break;
    case "event":
      render(model.apply(m.event));
      if (benchEvents) painted("event", m.seq);
      break;
    case "bench":
      benchEvents = m.events;
      if (m.frame) painted("frame");
      break;
    case "permission":
      render(model.askPermission(m.request));
      break;
    case "permissionClosed":
      render(model.closePermission(m.requestId, m.note));
      break;
    case "setInput":
      input.value = m.text;
      input.focus();
      break;
    case "notice":
      render(model.notice(m.level, m.text));
      break;
    default:
      console.warn(`pi chat: unknown message ${JSON.stringify((m as { type?: unknown }).type)}`);
  }
});

// The page's HTML may hold the session's first page already rendered (src/chat/page.ts): adopt it.
const initial = document.getElementById("initial");
if (initial) {
  const m = JSON.parse(initial.textContent ?? "") as Extract<ToWebview, { type: "reset" }>;
  hasEarlier = m.hasEarlier;
  render(model.load(m.entries, m.state), false, true);
  painted("reset", undefined, true);
}

const epoch = (t: number): number => performance.timeOrigin + t;
const fetched = performance.getEntriesByType("resource").find((e) => /\/chat\.js(\?|$)/.test(e.name)) as PerformanceResourceTiming | undefined;
post({ type: "ready", initial: !!initial, timing: { origin: performance.timeOrigin, scriptFetched: fetched ? epoch(fetched.responseEnd) : null, scriptStart: epoch(scriptStart), ready: epoch(performance.now()) } });

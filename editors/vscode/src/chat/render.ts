// The chat's items as HTML text: one renderer for the webview (which turns it into elements) and
// for the extension, which puts a panel's first screen into the HTML the panel is created with,
// so those messages are painted before the webview's script has even loaded. Pure (no DOM): all
// text is escaped, and markdown goes through src/chat/markdown.ts (raw HTML off).
import type { SessionState } from "../protocol";
import { escapeHtml as esc, renderMarkdown } from "./markdown";
import type { ChatItem, ChatModel, ToolCard } from "./model";

/** Items a reset renders before its first paint (more than a screen), in the webview and in a
 * panel's first HTML alike. */
export const FIRST_SCREEN = 30;

/** Tool cards the user opened or closed, by tool call id (others follow their status). */
export type ToolOpen = (id: string) => boolean | undefined;

function button(label: string, data: Record<string, string>, title?: string): string {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join("");
  return `<button class="act"${attrs}${title ? ` title="${esc(title)}"` : ""}>${esc(label)}</button>`;
}

const div = (cls: string, text: string): string => `<div class="${cls}">${esc(text)}</div>`;

function actions(item: ChatItem): string {
  if (!item.entryId) return '<div class="actions"></div>';
  return `<div class="actions">${item.kind === "user" ? button("Edit & branch", { action: "editAndBranch" }, "Move back before this message and edit it; sending makes a new branch") : ""}${
    button("Branch from here", { action: "branch" }, "Continue from this point (optionally summarizing the branch you leave)")}${
    button("Label…", { action: "label" }, "Bookmark this entry in the session tree")}${
    button("Fork", { action: "fork" }, "Copy the conversation up to here into a new session")}${
    button("Copy", { action: "copy" }, "Copy this message")}</div>`;
}

export function toolCardHtml(card: ToolCard, open: ToolOpen = () => undefined): string {
  const isOpen = open(card.id) ?? (card.status === "running" || card.status === "error" || !!card.diff);
  const arg = card.args.path ?? card.args.command ?? card.args.pattern ?? "";
  const status = card.status === "none" ? "no result" : card.status;
  let html = `<details class="tool ${card.status}" data-tool-id="${esc(card.id)}"${isOpen ? " open" : ""}><summary>` +
    `<span class="tool-name">${esc(card.name)}</span><span class="tool-arg">${esc(String(arg))}</span><span class="status ${card.status}">${esc(status)}</span></summary>` +
    `<pre class="args">${esc(JSON.stringify(card.args, null, 2))}</pre>`;
  if (card.diff) {
    const lines = card.diff.split("\n").map((l) => `<span class="${l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "ctx"}">${esc(l + "\n")}</span>`);
    html += `<pre class="diff">${lines.join("")}</pre>`;
  }
  if (card.output) html += `<pre class="output">${esc(card.output.length > 20000 ? card.output.slice(0, 20000) + "\n…" : card.output)}</pre>`;
  return html + "</details>";
}

function body(item: ChatItem, tools: ReadonlyMap<string, ToolCard>, open: ToolOpen): string {
  switch (item.kind) {
    case "user":
      return div("who", "You") + div("text", item.text);
    case "assistant": {
      let html = div("who", "pi");
      for (const b of item.blocks) {
        if (b.type === "text") html += `<div class="md">${renderMarkdown(b.text)}</div>`;
        else if (b.type === "thinking") html += `<details class="thinking"><summary>Thinking</summary>${div("text", b.text)}</details>`;
        else {
          const card = tools.get(b.id);
          if (card) html += toolCardHtml(card, open);
        }
      }
      if (item.streaming) html += '<span class="cursor">▍</span>';
      if (item.stopReason === "aborted") html += div("note", "Stopped.");
      if (item.stopReason === "error") {
        html += div("note error", `The model call failed: ${item.errorMessage ?? "unknown error"}. Check pi.apiBase / the API key, or send again.`);
      }
      return html;
    }
    case "compaction": {
      const what = item.pending ? "Compacting the conversation…" : item.error ? `Compaction failed: ${item.error}` :
        `Compacted: ${item.tokensBefore ?? "?"} tokens of earlier conversation summarized`;
      return `<details class="summary-box"><summary>${esc(what)}</summary>${item.summary ? `<div class="md">${renderMarkdown(item.summary)}</div>` : ""}</details>`;
    }
    case "branchSummary":
      return `<details class="summary-box"><summary>Summary of the branch left</summary><div class="md">${renderMarkdown(item.summary)}</div></details>`;
    case "bash":
      return div("who", `$ ${item.command}`) + `<pre class="output">${esc(item.output)}</pre>`;
    case "custom":
    case "notice":
      return div("text", item.text);
    case "foreign": {
      const n = item.entryIds.length;
      return div("who", "Another program wrote to this session") +
        div("text", `While this turn ran, another program (such as the pi CLI) appended ${n} ${n === 1 ? "entry" : "entries"} to this session file. ` +
          "They form a separate branch beside this conversation, which stayed on its own.") +
        `<div class="foreign-actions">${button("Show in tree", { tree: item.tipId }, "Reveal the other branch in the session tree")}${
          button("Switch to that branch", { foreign: item.tipId }, "Continue from the other program's last entry (optionally summarizing this branch)")}</div>`;
    }
    case "changes":
      return div("who", "Files changed in this turn") +
        item.files.map((f) => `<div class="file"><span class="path">${esc(f)}</span>${button("Open diff", { diff: f })}</div>`).join("");
  }
}

/** One item's element, `data-key` and `data-entry-id` included (the webview finds items by them). */
export function itemHtml(item: ChatItem, tools: ReadonlyMap<string, ToolCard>, open: ToolOpen = () => undefined): string {
  const cls = item.kind === "notice" ? `item notice ${item.level}` : item.kind === "foreign" ? "item notice warning foreign" : `item ${item.kind}`;
  const id = item.entryId ? ` data-entry-id="${esc(item.entryId)}"` : "";
  const acts = item.kind !== "notice" && item.kind !== "changes" && item.kind !== "foreign" ? actions(item) : "";
  return `<div class="${cls}" data-key="${item.key}"${id}>${body(item, tools, open)}${acts}</div>`;
}

/** The header's and meter's texts for a session state. */
export function chromeText(model: ChatModel): { name: string; model: string; thinking: string; meter: string; percent: number } {
  const s: SessionState | null = model.state;
  const u = model.usage();
  const pct = u.percent === null ? "?" : `${u.percent.toFixed(1)}%`;
  return {
    name: s?.sessionName ?? "New session",
    model: s?.model ? `${s.model.provider}/${s.model.modelId}` : "no model",
    thinking: `thinking: ${s?.thinkingLevel ?? "off"}`,
    meter: `${u.tokens ?? "?"} / ${u.window ?? "?"} tokens (${pct}) · $${u.cost.toFixed(4)}`,
    percent: Math.min(100, u.percent ?? 0),
  };
}

// The chat panel's HTML: media/chat.html with its resource addresses filled in and, when the
// session is known, its first screen of messages already rendered (src/chat/render.ts) plus
// the reset those came from as JSON (a data block, not a script: the CSP allows only the
// extension's files), which the webview adopts instead of waiting for a postMessage. Pure, so
// the webview tests serve exactly what the panel gets.
import type { ToWebview } from "./messages";
import { ChatModel } from "./model";
import { chromeText, FIRST_SCREEN, itemHtml } from "./render";
import { escapeHtml } from "./markdown";

export type Reset = Extract<ToWebview, { type: "reset" }>;

export interface PageUris {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
}

/** JSON that can sit inside a <script> element (no "</script" or "<!--" can be formed). */
const inertJson = (v: unknown): string => JSON.stringify(v).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

export function chatPage(template: string, uris: PageUris, first: Reset | null): string {
  const model = new ChatModel();
  let log = "";
  let initial = "";
  if (first) {
    model.load(first.entries, first.state);
    log = model.items.slice(-FIRST_SCREEN).map((item) => itemHtml(item, model.tools)).join("");
    initial = `<script type="application/json" id="initial">${inertJson(first)}</script>`;
  }
  const t = chromeText(model);
  const fill: Record<string, string> = {
    cspSource: uris.cspSource, scriptUri: uris.scriptUri, styleUri: uris.styleUri,
    name: escapeHtml(t.name), model: escapeHtml(t.model), thinking: escapeHtml(t.thinking), meter: escapeHtml(t.meter), log, initial,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (all, key: string) => fill[key] ?? all);
}

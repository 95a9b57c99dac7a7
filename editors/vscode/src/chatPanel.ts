// The chat webview panel: loads media/chat.html under a CSP that allows only the extension's own
// script and styles, with the session's first screen already rendered into it (src/chat/page.ts),
// pages the session's entries into it (the last PAGE first), forwards the current session's
// pi/event stream, and turns the webview's messages into commands.
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { Entry, FromWebview, ToWebview } from "./chat/messages";
import { chatPage, type Reset } from "./chat/page";
import type { PendingPermission } from "./chat/model";
import type { Sessions } from "./session";

export const PAGE = 200;
const now = (): number => performance.timeOrigin + performance.now();

export class ChatPanel implements vscode.Disposable {
  panel: vscode.WebviewPanel | null = null;
  private ready = false;
  /** The panel's HTML holds the current page and nothing was posted since (no reset needed). */
  private inHtml = false;
  private queue: ToWebview[] = [];
  private entries: Entry[] = [];
  /** Index in `entries` of the oldest entry the webview has. */
  private shownFrom = 0;
  /** `entries` is what pi/session/messages would answer now (kept so from message_end). */
  private fresh = false;
  private disposables: vscode.Disposable[] = [];
  /** Every message the webview posted, with its arrival (tests and benchmarks read it). */
  readonly received: FromWebview[] = [];
  private readonly painted = new vscode.EventEmitter<Extract<FromWebview, { type: "painted" }>>();
  /** The webview painted a reset (or, in bench mode, an event). */
  readonly onPainted = this.painted.event;
  /** When the last new panel was asked for, created, given its HTML, and said ready (epoch ms;
   * the benchmark's breakdown of a first paint). */
  readonly timeline = { asked: 0, panel: 0, html: 0, ready: 0 };
  onMessage: (m: FromWebview) => void = () => undefined;
  /** The page (re)loaded: what it must show again (pending permission prompts). */
  onReady: () => void = () => undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly sessions: Sessions) {
    this.disposables.push(
      sessions.listen({
        reset: (state, entries) => {
          this.entries = entries as Entry[];
          this.fresh = true;
          this.post(this.page(state)!);
        },
        event: (n) => {
          this.track(n.event as unknown as Entry);
          this.post({ type: "event", event: n.event, seq: n.seq });
        },
      }),
    );
  }

  /** The reset for a session state (the current one by default): its last PAGE entries. */
  private page(state = this.sessions.current): Reset | null {
    if (!state) return null;
    this.shownFrom = Math.max(0, this.entries.length - PAGE);
    return { type: "reset", state, entries: this.entries.slice(this.shownFrom), hasEarlier: this.shownFrom > 0 };
  }

  /** Keep `entries` current: a stored message is appended; anything else that changes the
   * context (compaction, summaries, custom messages) makes the next panel re-read it. */
  private track(e: Entry): void {
    if (e.type === "message_end" && typeof e.entryId === "string" && e.message) {
      const last = this.entries[this.entries.length - 1];
      this.entries.push({ type: "message", id: e.entryId, parentId: last ? last.id : null, message: e.message });
    } else if (e.type === "compaction_end" || e.type === "auto_compaction_end") {
      this.fresh = false;
    } else if (e.type === "entry_appended") {
      const t = (e.entry as Entry | undefined)?.type;
      if (t === "compaction" || t === "branch_summary" || t === "custom_message") this.fresh = false;
    }
  }

  get visible(): boolean {
    return !!this.panel?.visible;
  }

  /** Show the panel (creating it), beside the editor. */
  show(preserveFocus = false): vscode.WebviewPanel {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return this.panel;
    }
    this.timeline.asked = now();
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    const panel = vscode.window.createWebviewPanel(
      "pi.chat",
      "pi",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [media] },
    );
    this.timeline.panel = now();
    panel.iconPath = vscode.Uri.joinPath(media, "pi.svg");
    const template = fs.readFileSync(vscode.Uri.joinPath(media, "chat.html").fsPath, "utf8");
    const webview = panel.webview;
    const state = this.sessions.current;
    // the first screen goes into the HTML itself, so it is painted without waiting for chat.js
    const first = state && this.fresh ? this.page() : null;
    this.inHtml = first !== null;
    panel.webview.html = chatPage(template, {
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString(),
    }, first);
    this.timeline.html = now();
    this.ready = false;
    panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m), null, this.disposables);
    panel.onDidDispose(() => {
      this.panel = null;
      this.ready = false;
    }, null, this.disposables);
    this.panel = panel;
    return panel;
  }

  private receive(m: FromWebview): void {
    this.received.push(m);
    if (m.type === "ready") {
      this.timeline.ready = now();
      this.ready = true;
      const pending = this.queue;
      this.queue = [];
      for (const q of pending) if (q.type !== "reset" && q.type !== "event") void this.panel?.webview.postMessage(q);
      const state = this.sessions.current;
      if (m.initial && this.inHtml) {
        // the page shows what its HTML held, and nothing changed since (inHtml stays true)
      } else if (state && this.fresh) this.post(this.page()!);
      else if (state) void this.sessions.reload();
      this.onReady();
      return;
    }
    if (m.type === "painted") {
      this.painted.fire(m);
      return;
    }
    if (m.type === "loadEarlier") {
      const from = Math.max(0, this.shownFrom - PAGE);
      const page = this.entries.slice(from, this.shownFrom);
      this.shownFrom = from;
      this.post({ type: "earlier", entries: page, hasEarlier: from > 0 });
      return;
    }
    this.onMessage(m);
  }

  post(m: ToWebview): void {
    if (!this.panel) return;
    if (m.type === "reset" || m.type === "event") this.inHtml = false;
    if (!this.ready) {
      this.queue.push(m);
      return;
    }
    void this.panel.webview.postMessage(m);
  }

  permission(p: PendingPermission): void {
    this.post({ type: "permission", request: p });
  }

  permissionClosed(requestId: string, note?: string): void {
    this.post({ type: "permissionClosed", requestId, ...(note ? { note } : {}) });
  }

  setInput(text: string): void {
    this.post({ type: "setInput", text });
  }

  notice(level: "info" | "warning" | "error", text: string): void {
    this.post({ type: "notice", level, text });
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

// The chat webview: loads media/chat.html under a CSP that allows only the extension's own
// script and styles, with the session's first screen already rendered into it (src/chat/page.ts),
// pages the session's entries into it (the last PAGE first), forwards the current session's
// pi/event stream, and turns the webview's messages into commands. It lives in an editor tab
// beside the code (a WebviewPanel, `pi.chat.location` "editor") or in the pi container's Chat
// view (a WebviewView, "sidebar": resolved once, then only shown and hidden).
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { Entry, FromWebview, ToWebview } from "./chat/messages";
import { chatPage, type Reset } from "./chat/page";
import type { PendingPermission } from "./chat/model";
import type { Sessions } from "./session";

export const PAGE = 200;
const now = (): number => performance.timeOrigin + performance.now();

export const VIEW_ID = "pi.chatView";

export class ChatPanel implements vscode.Disposable, vscode.WebviewViewProvider {
  panel: vscode.WebviewPanel | null = null;
  /** The Chat view, once VS Code resolved it (`pi.chat.location` "sidebar"). */
  view: vscode.WebviewView | null = null;
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
    return !!this.panel?.visible || !!this.view?.visible;
  }

  /** Where `show` puts the chat (`pi.chat.location`). */
  get location(): "editor" | "sidebar" {
    return vscode.workspace.getConfiguration("pi").get("chat.location") === "sidebar" ? "sidebar" : "editor";
  }

  /** The webview the chat is in (the panel's or the view's), if one exists. */
  get webview(): vscode.Webview | null {
    return this.panel?.webview ?? this.view?.webview ?? null;
  }

  /** Show the chat: the editor tab beside the code (created if needed), or the Chat view. */
  show(preserveFocus = false): void {
    if (this.location === "sidebar" && !this.panel) {
      if (this.view) this.view.show(preserveFocus);
      else {
        this.timeline.asked = now();
        // VS Code resolves the view (resolveWebviewView) as it becomes visible
        void vscode.commands.executeCommand(`${VIEW_ID}.focus`, { preserveFocus });
      }
      return;
    }
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    this.timeline.asked = now();
    const panel = vscode.window.createWebviewPanel(
      "pi.chat",
      "pi",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [this.media] },
    );
    this.timeline.panel = now();
    panel.iconPath = vscode.Uri.joinPath(this.media, "pi.svg");
    panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m), null, this.disposables);
    this.load(panel.webview);
    panel.onDidDispose(() => {
      this.panel = null;
      this.ready = false;
      // a Chat view resolved while the tab was open was left empty: it becomes the chat
      if (this.view) this.load(this.view.webview);
    }, null, this.disposables);
    this.panel = panel;
  }

  /** VS Code shows the Chat view for the first time (or again after it was disposed). */
  resolveWebviewView(view: vscode.WebviewView): void {
    this.timeline.panel = now();
    view.webview.options = { enableScripts: true, localResourceRoots: [this.media] };
    view.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m), null, this.disposables);
    // an open editor tab stays the chat until it is closed; the view then takes over
    if (!this.panel) this.load(view.webview);
    view.onDidDispose(() => {
      if (this.view === view) this.view = null;
      if (!this.panel) this.ready = false;
    }, null, this.disposables);
    this.view = view;
  }

  private get media(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, "media");
  }

  /** Give a webview its HTML (with the session's first screen when it is known); its messages
   * are listened to once, where the webview is made (a view may be loaded again). */
  private load(webview: vscode.Webview): void {
    const template = fs.readFileSync(vscode.Uri.joinPath(this.media, "chat.html").fsPath, "utf8");
    const state = this.sessions.current;
    // the first screen goes into the HTML itself, so it is painted without waiting for chat.js
    const first = state && this.fresh ? this.page() : null;
    this.inHtml = first !== null;
    webview.html = chatPage(template, {
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.media, "chat.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.media, "chat.css")).toString(),
    }, first);
    this.timeline.html = now();
    this.ready = false;
  }

  private receive(m: FromWebview): void {
    this.received.push(m);
    if (m.type === "ready") {
      this.timeline.ready = now();
      this.ready = true;
      const pending = this.queue;
      this.queue = [];
      for (const q of pending) if (q.type !== "reset" && q.type !== "event") void this.webview?.postMessage(q);
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
    const webview = this.webview;
    if (!webview) return;
    if (m.type === "reset" || m.type === "event") this.inHtml = false;
    if (!this.ready) {
      this.queue.push(m);
      return;
    }
    void webview.postMessage(m);
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

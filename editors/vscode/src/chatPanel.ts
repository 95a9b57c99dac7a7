// The chat webview panel: loads media/chat.html under a CSP that allows only the extension's own
// script and styles, pages the session's entries into it (the last PAGE first), forwards the
// current session's pi/event stream, and turns the webview's messages into commands.
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { Entry, FromWebview, ToWebview } from "./chat/messages";
import type { PendingPermission } from "./chat/model";
import type { Sessions } from "./session";

export const PAGE = 200;

export class ChatPanel implements vscode.Disposable {
  panel: vscode.WebviewPanel | null = null;
  private ready = false;
  private queue: ToWebview[] = [];
  private entries: Entry[] = [];
  /** Index in `entries` of the oldest entry the webview has. */
  private shownFrom = 0;
  private disposables: vscode.Disposable[] = [];
  /** Every message the webview posted (tests read it through pi._test). */
  readonly received: FromWebview[] = [];
  onMessage: (m: FromWebview) => void = () => undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly sessions: Sessions) {
    this.disposables.push(
      sessions.listen({
        reset: (state, entries) => {
          this.entries = entries as Entry[];
          this.shownFrom = Math.max(0, this.entries.length - PAGE);
          this.post({ type: "reset", state, entries: this.entries.slice(this.shownFrom), hasEarlier: this.shownFrom > 0 });
        },
        event: (n) => this.post({ type: "event", event: n.event }),
      }),
    );
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
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    const panel = vscode.window.createWebviewPanel(
      "pi.chat",
      "pi",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [media] },
    );
    panel.iconPath = vscode.Uri.joinPath(media, "pi.svg");
    const html = fs.readFileSync(vscode.Uri.joinPath(media, "chat.html").fsPath, "utf8");
    const webview = panel.webview;
    panel.webview.html = html
      .replaceAll("{{cspSource}}", webview.cspSource)
      .replaceAll("{{scriptUri}}", webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.js")).toString())
      .replaceAll("{{styleUri}}", webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString());
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
      this.ready = true;
      const pending = this.queue;
      this.queue = [];
      for (const q of pending) if (q.type !== "reset" && q.type !== "event") void this.panel?.webview.postMessage(q);
      // what arrived before the page was ready is re-read whole
      if (this.sessions.current) void this.sessions.reload();
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

// The session the chat shows: which one (per workspace folder, unless pinned), its state, its
// event stream (seq checked: a gap reloads), and the daemon calls on it. One owner of "the
// current session"; the chat panel, tree view, sessions view and status bar listen.
import * as vscode from "vscode";
import type { Daemon } from "./daemon";
import { METHODS, type EventNotification, type MessagesResult, type SessionState } from "./protocol";

export interface SessionListener {
  /** A different session, or the same one reloaded (after a branch, a gap, a restart). */
  reset?(state: SessionState, entries: MessagesResult["entries"]): void;
  event?(n: EventNotification): void;
  state?(state: SessionState): void;
}

export class Sessions implements vscode.Disposable {
  current: SessionState | null = null;
  pinned = false;
  private byFolder = new Map<string, string>();
  private lastSeq = new Map<string, number>();
  private listeners = new Set<SessionListener>();
  private disposables: vscode.Disposable[] = [];
  /** Logged problems (malformed events): the chat keeps working. */
  log: (line: string) => void = () => undefined;

  constructor(readonly daemon: Daemon) {
    this.disposables.push(
      daemon.onEvent((n) => this.onEvent(n)),
      daemon.onStarted(() => void this.reopenAfterRestart()),
    );
  }

  listen(l: SessionListener): vscode.Disposable {
    this.listeners.add(l);
    return new vscode.Disposable(() => this.listeners.delete(l));
  }

  private onEvent(n: EventNotification): void {
    if (!n || typeof n.sessionId !== "string" || typeof n.seq !== "number" || !n.event || typeof n.event !== "object") {
      this.log(`ignored a malformed pi/event: ${JSON.stringify(n).slice(0, 300)}`);
      return;
    }
    const last = this.lastSeq.get(n.sessionId) ?? 0;
    this.lastSeq.set(n.sessionId, Math.max(last, n.seq));
    if (this.current?.sessionId !== n.sessionId) return;
    if (n.seq > last + 1 && last > 0) {
      this.log(`pi/event seq jumped from ${last} to ${n.seq}: reloading the session`);
      void this.reload();
      return;
    }
    if (n.event.type === "state_changed") {
      const state = (n.event as { state: SessionState }).state;
      this.current = state;
      for (const l of this.listeners) l.state?.(state);
    }
    for (const l of this.listeners) l.event?.(n);
  }

  /** The folder of the last active text editor (a focused webview has none), else the first. */
  activeFolder(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document.uri ?? this.lastEditor;
    const folder = (doc && vscode.workspace.getWorkspaceFolder(doc)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.toString();
  }

  private lastEditor: vscode.Uri | undefined;

  /** Called when the active text editor changes (extension.ts). */
  editorChanged(editor: vscode.TextEditor | undefined): void {
    if (editor) this.lastEditor = editor.document.uri;
  }

  async showState(state: SessionState): Promise<SessionState> {
    this.current = state;
    this.byFolder.set(state.folder, state.sessionId);
    this.lastSeq.set(state.sessionId, state.lastSeq);
    const [messages, fresh] = await Promise.all([
      this.daemon.request<MessagesResult>(METHODS.sessionMessages, { sessionId: state.sessionId }),
      this.daemon.request<SessionState>(METHODS.sessionState, { sessionId: state.sessionId }),
    ]);
    this.current = fresh;
    this.lastSeq.set(state.sessionId, Math.max(fresh.lastSeq, this.lastSeq.get(state.sessionId) ?? 0));
    for (const l of this.listeners) l.reset?.(fresh, messages.entries);
    return fresh;
  }

  async newSession(folder?: string): Promise<SessionState> {
    const state = await this.daemon.request<SessionState>(METHODS.sessionNew, folder ? { folder } : {});
    return this.showState(state);
  }

  /** Open a session file (path) or a session of the workspace by id (or id prefix). */
  async open(pathOrId: string, folder?: string): Promise<SessionState> {
    let path = pathOrId;
    if (!pathOrId.endsWith(".jsonl")) {
      const folders = folder ? [folder] : (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
      let found: string | undefined;
      for (const f of folders) {
        const list = await this.daemon.request<{ sessions: { id: string; path: string }[] }>(METHODS.sessionsList, { folder: f });
        const exact = list.sessions.find((s) => s.id === pathOrId);
        const prefixed = list.sessions.filter((s) => s.id.startsWith(pathOrId));
        if (!exact && prefixed.length > 1) {
          // UUIDv7 ids (pi 1.6.0) of sessions made close together share their first characters.
          throw new Error(`pi: ${prefixed.length} sessions have ids starting with ${pathOrId}; give more of the id`);
        }
        found = (exact ?? prefixed[0])?.path;
        if (found) break;
      }
      if (!found) throw new Error(`pi: no session with id ${pathOrId} in this workspace`);
      path = found;
    }
    const state = await this.daemon.request<SessionState>(METHODS.sessionOpen, folder ? { path, folder } : { path });
    return this.showState(state);
  }

  /** The current session, else the remembered one of the active folder, else a new one. (The
   * chat changes folder only when the user switches editors, never in the middle of a send.) */
  async ensure(): Promise<SessionState> {
    if (this.current) return this.current;
    return this.followFolder(true);
  }

  /** The chat follows the active editor's folder unless a session is pinned. */
  async followFolder(create = false): Promise<SessionState> {
    const folder = this.activeFolder();
    if (this.current && (this.pinned || !folder || folder === this.current.folder)) return this.current;
    const known = folder ? this.byFolder.get(folder) : undefined;
    if (known) {
      const state = await this.daemon.request<SessionState>(METHODS.sessionState, { sessionId: known }).catch(() => null);
      if (state) return this.showState(state);
    }
    if (!create && this.current) return this.current;
    return this.newSession(folder);
  }

  async reload(): Promise<void> {
    if (this.current) await this.showState(this.current);
  }

  /** The daemon restarted: its sessions are gone; reopen the shown one from its file. */
  private async reopenAfterRestart(): Promise<void> {
    const old = this.current;
    this.byFolder.clear();
    this.lastSeq.clear();
    if (!old) return;
    this.current = null;
    try {
      if (old.sessionFile && (await exists(old.sessionFile))) await this.open(old.sessionFile, old.folder);
      else await this.newSession(old.folder);
    } catch (err) {
      this.log(`could not reopen the session after a restart: ${String(err)}`);
    }
  }

  async request<R>(method: string, params: Record<string, unknown> = {}): Promise<R> {
    const state = await this.ensure();
    return this.daemon.request<R>(method, { sessionId: state.sessionId, ...params });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(file));
    return true;
  } catch {
    return false;
  }
}

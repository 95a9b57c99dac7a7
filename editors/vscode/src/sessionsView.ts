// The "Sessions" view: pi's sessions of each workspace folder, newest first, with name, time,
// first message and size; the open one marked; a filter (pi.filterSessions). Click opens.
import * as vscode from "vscode";
import { METHODS, type SessionInfo, type SessionList } from "./protocol";
import type { Sessions } from "./session";

type Row = { kind: "folder"; uri: string; name: string } | { kind: "session"; info: SessionInfo; folder: string };

export function matches(info: SessionInfo, filter: string): boolean {
  if (!filter) return true;
  const hay = `${info.name ?? ""} ${info.firstMessage ?? ""} ${info.allMessagesText ?? ""} ${info.id}`.toLowerCase();
  return filter.toLowerCase().split(/\s+/).filter(Boolean).every((w) => hay.includes(w));
}

export class SessionsView implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  filter = "";
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private disposables: vscode.Disposable[] = [];
  view: vscode.TreeView<Row> | null = null;

  constructor(private readonly sessions: Sessions) {
    this.disposables.push(
      sessions.listen({ reset: () => this.refresh(), state: () => undefined }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()),
    );
  }

  refresh(): void {
    this.changed.fire(undefined);
    if (this.view) this.view.description = this.filter ? `filter: ${this.filter}` : undefined;
  }

  async getChildren(row?: Row): Promise<Row[]> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!row && folders.length > 1) return folders.map((f) => ({ kind: "folder", uri: f.uri.toString(), name: f.name }));
    const folder = row?.kind === "folder" ? row.uri : folders[0]?.uri.toString();
    if (row?.kind === "session") return [];
    if (!this.sessions.daemon.isRunning && !(await this.sessions.daemon.start())) return [];
    const list = await this.sessions.daemon.request<SessionList>(METHODS.sessionsList, folder ? { folder } : {});
    return list.sessions.filter((s) => matches(s, this.filter)).map((info) => ({ kind: "session", info, folder: folder ?? "" }));
  }

  getTreeItem(row: Row): vscode.TreeItem {
    if (row.kind === "folder") {
      const item = new vscode.TreeItem(row.name, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = vscode.ThemeIcon.Folder;
      return item;
    }
    const s = row.info;
    const open = this.sessions.current?.sessionFile === s.path;
    const item = new vscode.TreeItem(s.name || s.firstMessage || "(empty session)", vscode.TreeItemCollapsibleState.None);
    item.id = s.path;
    item.description = `${open ? "● open · " : ""}${when(s.modified)} · ${s.messageCount} messages`;
    item.tooltip = new vscode.MarkdownString(`**${s.name ?? "(unnamed)"}**\n\n${s.firstMessage ?? ""}\n\n${s.path}`);
    item.iconPath = new vscode.ThemeIcon(open ? "comment-discussion" : "comment");
    item.contextValue = "session";
    item.command = { command: "pi.openSession", title: "Open", arguments: [{ path: s.path, folder: row.folder }] };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
}

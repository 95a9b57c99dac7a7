// The "Session tree" view: TreeModel rendered as a VS Code tree. Loaded once per session
// (pi/session/tree), then kept current from entry_appended / state_changed events. The active
// path is coloured (a FileDecoration on the rows' pi-entry: URIs), the leaf marked, labels shown
// as badges; clicking a row branches there.
import * as vscode from "vscode";
import { METHODS, type TreeNode, type TreeResult } from "../protocol";
import type { Sessions } from "../session";
import { TreeModel, type Row } from "./model";

const ICONS: Record<string, string> = {
  user: "account",
  assistant: "hubot",
  toolResult: "tools",
  bashExecution: "terminal",
  compaction: "fold",
  branch_summary: "git-merge",
  model_change: "settings-gear",
  thinking_level_change: "lightbulb",
  label: "tag",
  session_info: "edit",
};

export class TreeView implements vscode.TreeDataProvider<Row>, vscode.FileDecorationProvider, vscode.Disposable {
  readonly model = new TreeModel();
  private sessionId: string | null = null;
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly decorations = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.decorations.event;
  private refreshTimer: NodeJS.Timeout | null = null;
  private disposables: vscode.Disposable[] = [];
  view: vscode.TreeView<Row> | null = null;
  /** Resolves when the current session's tree is loaded (tests and pi.showTree wait on it). */
  loaded: Promise<void> = Promise.resolve();

  constructor(private readonly sessions: Sessions) {
    this.disposables.push(
      vscode.window.registerFileDecorationProvider(this),
      sessions.listen({
        reset: (state) => {
          this.sessionId = state.sessionId;
          this.loaded = this.load(state.sessionId);
          // which welcome text an empty tree shows (package.json viewsWelcome)
          void vscode.commands.executeCommand("setContext", "pi.sessionOpen", true);
        },
        event: (n) => {
          const e = n.event as { type: string; entry?: TreeNode; state?: { leafId: string | null } };
          if (e.type === "entry_appended" && e.entry) {
            this.model.append(e.entry);
            this.refresh();
          } else if (e.type === "state_changed" && e.state && this.model.setLeaf(e.state.leafId)) this.refresh();
        },
      }),
    );
  }

  private async load(sessionId: string): Promise<void> {
    const tree = await this.sessions.daemon.request<TreeResult>(METHODS.sessionTree, { sessionId });
    if (sessionId !== this.sessionId) return;
    this.model.load(tree);
    this.changed.fire(undefined);
    this.decorations.fire(undefined);
  }

  /** Coalesced: a streaming turn appends entries quickly. */
  refresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      this.changed.fire(undefined);
      this.decorations.fire(undefined);
    }, 50);
  }

  getChildren(row?: Row): Row[] {
    return this.model.children(row);
  }

  /** The row a row sits under (VS Code needs it to reveal a row). */
  getParent(row: Row): Row | undefined {
    const chain = this.model.rowPath(row.kind === "chunk" ? row.ids[0] : row.id);
    const i = chain.findIndex((r) => r.kind === row.kind && r.id === row.id);
    return i > 0 ? chain[i - 1] : undefined;
  }

  /** Select and show an entry's row, expanding what holds it; false when it is not in the tree. */
  async reveal(entryId: string): Promise<boolean> {
    const row = this.model.rowPath(entryId).at(-1);
    if (!row || !this.view) return false;
    await this.view.reveal(row, { select: true, focus: false, expand: true });
    return true;
  }

  getTreeItem(row: Row): vscode.TreeItem {
    if (row.kind === "chunk") {
      const first = this.model.nodes.get(row.ids[0]);
      const item = new vscode.TreeItem(`${row.ids.length} entries`, this.model.containsLeaf(row)
        ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${this.sessionId}:${row.id}`;
      item.description = first ? `from ${first.preview.slice(0, 40)}` : "";
      item.iconPath = new vscode.ThemeIcon("list-flat");
      return item;
    }
    const n = this.model.nodes.get(row.id);
    if (!n) return new vscode.TreeItem("?");
    const collapsible = !this.model.hasChildren(row) ? vscode.TreeItemCollapsibleState.None
      : n.onActivePath ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    const leaf = n.id === this.model.leafId;
    const item = new vscode.TreeItem(n.preview || n.type, collapsible);
    // the id changes when the row gains children, so VS Code applies the new default state
    item.id = `${this.sessionId}:${n.id}:${collapsible === vscode.TreeItemCollapsibleState.None ? "l" : "c"}`;
    const kind = n.type === "message" ? n.role ?? "message" : n.type;
    // a bookmarked entry shows the tag codicon (the workbench's own icon font; an emoji such as
    // 🏷 needs a system emoji font and showed as an empty box without one) and its label's text
    item.iconPath = new vscode.ThemeIcon(leaf ? "circle-filled" : n.label ? "tag" : ICONS[kind] ?? "circle-outline");
    item.description = [n.label ? `label: ${n.label}` : "", leaf ? "● leaf" : "", n.children.length > 1 ? `${n.children.length} branches` : ""]
      .filter(Boolean).join("  ");
    item.tooltip = new vscode.MarkdownString(`**${kind}** ${n.id}${n.label ? ` — label *${n.label}*` : ""}\n\n${n.preview}\n\n${n.timestamp}`);
    item.resourceUri = vscode.Uri.from({ scheme: "pi-entry", path: `/${n.id}`, query: n.onActivePath ? "active" : "" });
    item.contextValue = `entry.${kind}${n.type === "message" ? ".message" : ""}`;
    item.command = { command: "pi.branchFromMessage", title: "Go here", arguments: [{ entryId: n.id, summarize: false }] };
    return item;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== "pi-entry") return undefined;
    const id = uri.path.slice(1);
    const n = this.model.nodes.get(id);
    if (!n?.onActivePath) return undefined;
    return { color: new vscode.ThemeColor("charts.blue"), tooltip: "on the active path", badge: id === this.model.leafId ? "●" : undefined };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

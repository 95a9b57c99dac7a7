// Entry point: wires the daemon, the current session, the chat panel, the tree and sessions
// views, the status bar, permission prompts and the "Open diff" of files a turn changed.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ChatPanel, VIEW_ID } from "./chatPanel";
import type { FromWebview } from "./chat/messages";
import type { PendingPermission } from "./chat/model";
import { registerCommands } from "./commands";
import { Daemon } from "./daemon";
import { METHODS, type PermissionRequestParams, type PermissionResult, type PromptResult, type SessionState } from "./protocol";
import { Sessions } from "./session";
import { SessionsView } from "./sessionsView";
import { TreeView } from "./tree/view";

const DECISIONS = { "Allow once": "allowOnce", "Allow for this session": "allowSession", Deny: "deny" } as const;

export interface Api {
  daemon: Daemon;
  sessions: Sessions;
  chat: ChatPanel;
  tree: TreeView;
  sessionsView: SessionsView;
  /** The status bar item: the session's context meter (tokens / window, %), model, thinking. */
  status: vscode.StatusBarItem;
  /** Files' text before the running/last turn changed them (Open diff). */
  before: Map<string, string>;
  /** Permission prompts waiting for an answer, by request id (answer = call with a decision). */
  permissions: Map<string, (decision: PermissionResult["decision"], note?: string) => void>;
}

export function activate(context: vscode.ExtensionContext): Api {
  const output = vscode.window.createOutputChannel("pi");
  const daemon = new Daemon(output);
  const sessions = new Sessions(daemon);
  sessions.log = (line) => output.appendLine(`[pi] ${line}`);
  const chat = new ChatPanel(context.extensionUri, sessions);
  const tree = new TreeView(sessions);
  const sessionsView = new SessionsView(sessions);
  tree.view = vscode.window.createTreeView("pi.tree", { treeDataProvider: tree, showCollapseAll: true });
  sessionsView.view = vscode.window.createTreeView("pi.sessions", { treeDataProvider: sessionsView });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "pi.openChat";
  status.text = "$(comment-discussion) pi";
  status.tooltip = "pi: open the chat";
  status.show();
  const before = new Map<string, string>();

  const showState = (s: SessionState): void => {
    const u = s.contextUsage;
    const pct = u?.percent === null || u?.percent === undefined ? "?" : `${u.percent.toFixed(1)}%`;
    status.text = `$(comment-discussion) pi ${s.isStreaming ? "$(loading~spin) " : ""}${pct}`;
    status.tooltip = `pi: ${s.sessionName ?? "new session"} · ${s.model ? `${s.model.provider}/${s.model.modelId}` : "no model"} · thinking ${s.thinkingLevel} · ${u?.tokens ?? "?"} / ${u?.contextWindow ?? "?"} tokens`;
  };

  // Permission prompts: in the panel, and as a notification when the panel is not visible.
  let nextRequest = 0;
  const pending = new Map<string, (d: PermissionResult["decision"], note?: string) => void>();
  const asked = new Map<string, PendingPermission>();
  const api: Api = { daemon, sessions, chat, tree, sessionsView, status, before, permissions: pending };
  daemon.permissionHandler = (p: PermissionRequestParams, token) =>
    new Promise<PermissionResult>((resolve) => {
      const requestId = `perm-${++nextRequest}`;
      const timeoutMs = Number(vscode.workspace.getConfiguration("pi").get("permissions.timeoutMs")) || 120000;
      const unanswered = `No answer to "${p.detail}" within ${Math.round(timeoutMs / 1000)} s: denied.`;
      const timer = setTimeout(() => finish("deny", unanswered), timeoutMs);
      const askedAt = Date.now();
      const finish = (decision: PermissionResult["decision"], note?: string): void => {
        if (!pending.has(requestId)) return;
        pending.delete(requestId);
        asked.delete(requestId);
        clearTimeout(timer);
        chat.permissionClosed(requestId, note);
        resolve({ decision });
      };
      pending.set(requestId, finish);
      asked.set(requestId, { requestId, kind: p.kind, toolName: p.toolName, toolCallId: p.toolCallId, detail: p.detail });
      // the daemon withdraws the request when its own timeout (the same setting) runs out, or when
      // the turn stops; the note says which
      token.onCancellationRequested(() => finish("deny", Date.now() - askedAt >= timeoutMs * 0.9 ? unanswered : `The request to run "${p.detail}" was withdrawn: the turn stopped.`));
      chat.permission(asked.get(requestId)!);
      if (!chat.visible) {
        const what = p.kind === "bash" ? `pi wants to run: ${p.detail}` : `pi wants to write outside the workspace: ${p.detail}`;
        void vscode.window.showWarningMessage(what, ...Object.keys(DECISIONS)).then((a) => {
          if (a) finish(DECISIONS[a as keyof typeof DECISIONS]);
        });
      }
    });

  // The text of each file before the turn's first edit of it, for "Open diff".
  const snapshot = (cwd: string, file: string): void => {
    const abs = path.resolve(cwd, file);
    if (before.has(abs)) return;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === abs);
    let text = "";
    if (open) text = open.getText();
    else {
      try {
        text = fs.readFileSync(abs, "utf8");
      } catch {
        text = "";
      }
    }
    before.set(abs, text);
  };

  const refreshSessions = (): void => sessionsView.refresh();
  context.subscriptions.push(
    output,
    daemon,
    sessions,
    chat,
    tree,
    sessionsView,
    status,
    tree.view,
    sessionsView.view,
    vscode.window.registerWebviewViewProvider(VIEW_ID, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.workspace.registerTextDocumentContentProvider("pi-before", {
      provideTextDocumentContent: (uri) => before.get(uri.path) ?? "",
    }),
    sessions.listen({
      reset: (s) => showState(s),
      state: (s) => showState(s),
      event: (n) => {
        const e = n.event as { type: string; toolName?: string; args?: { path?: unknown } };
        if (e.type === "agent_start") before.clear();
        if (e.type === "tool_execution_start" && (e.toolName === "edit" || e.toolName === "write") && typeof e.args?.path === "string") {
          snapshot(sessions.current?.cwd ?? "", e.args.path);
        }
        if (e.type === "agent_end" || (e.type === "entry_appended" && !sessions.current?.isStreaming)) refreshSessions();
      },
    }),
    daemon.onStopped((message) => chat.notice("error", `${message} Use "pi: Restart Server" (pi.restartServer).`)),
    daemon.onStarted(() => refreshSessions()),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      sessions.editorChanged(editor);
      if (!editor) return;
      if (chat.visible && !sessions.pinned && sessions.current && !sessions.current.isStreaming) {
        void sessions.followFolder(true).catch((err) => output.appendLine(`[pi] ${String(err)}`));
      }
    }),
    ...registerCommands({ daemon, sessions, chat, tree, refreshSessions, setSessionsFilter: (f) => {
      sessionsView.filter = f;
      sessionsView.refresh();
    } }),
  );

  chat.onReady = () => {
    for (const p of asked.values()) chat.permission(p);
  };
  chat.onMessage = (m: FromWebview) => void onWebview(m).catch((err) => {
    const message = err instanceof Error ? err.message : String(err);
    chat.notice("error", message);
    output.appendLine(`[pi] ${message}`);
  });

  async function onWebview(m: FromWebview): Promise<void> {
    switch (m.type) {
      case "send": {
        if (m.mode === "steer") await sessions.request(METHODS.sessionSteer, { text: m.text });
        else if (m.mode === "followUp") await sessions.request(METHODS.sessionFollowUp, { text: m.text });
        else {
          const state = await sessions.ensure();
          await sessions.request<PromptResult>(METHODS.sessionPrompt, state.isStreaming ? { text: m.text, streamingBehavior: "steer" } : { text: m.text });
        }
        return;
      }
      case "abort":
        await vscode.commands.executeCommand("pi.abort");
        return;
      case "permissionAnswer":
        pending.get(m.requestId)?.(m.decision);
        return;
      case "action": {
        const ids = { editAndBranch: "pi.editMessage", branch: "pi.branchFromMessage", label: "pi.labelEntry", fork: "pi.forkFromMessage" } as const;
        if (m.action === "copy") await vscode.env.clipboard.writeText(m.text ?? "");
        else await vscode.commands.executeCommand(ids[m.action], { entryId: m.entryId });
        return;
      }
      case "command": {
        const ids = { pickModel: "pi.selectModel", pickThinking: "pi.selectThinkingLevel", compact: "pi.compact", newSession: "pi.newSession", showTree: "pi.showTree", rename: "pi.renameSession", restart: "pi.restartServer" } as const;
        await vscode.commands.executeCommand(ids[m.command]);
        return;
      }
      case "reveal":
        await vscode.commands.executeCommand("pi.showTree", { entryId: m.entryId });
        return;
      case "openDiff": {
        const abs = path.resolve(sessions.current?.cwd ?? "", m.path);
        const left = vscode.Uri.from({ scheme: "pi-before", path: abs });
        await vscode.commands.executeCommand("vscode.diff", left, vscode.Uri.file(abs), `${path.basename(abs)} (before the turn) ↔ now`);
        return;
      }
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        return;
      default:
        return;
    }
  }

  void daemon.start();
  return api;
}

export function deactivate(): void {
  /* disposables stop the daemon */
}

// A multi-root workspace (two folders): each folder has its own sessions; the chat follows the
// folder of the active editor unless its session is pinned.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { Api } from "../../src/extension";
import { until } from "../until";

describe("multi-root workspace", () => {
  let api: Api;
  let a: vscode.WorkspaceFolder;
  let b: vscode.WorkspaceFolder;

  before(async () => {
    api = await vscode.extensions.getExtension<Api>("pi-lsp.pi-lsp")!.activate();
    await until("daemon", () => api.daemon.isRunning, 60000);
    [a, b] = vscode.workspace.workspaceFolders!;
    assert.ok(a && b, "two folders");
  });

  it("the chat follows the active editor's folder: one session per folder", async () => {
    await vscode.window.showTextDocument(vscode.Uri.joinPath(a.uri, "calc.py"));
    const first = (await vscode.commands.executeCommand("pi.openChat")) as { sessionId: string };
    assert.equal(api.sessions.current?.folder, a.uri.toString());
    await vscode.window.showTextDocument(vscode.Uri.joinPath(b.uri, "other.py"), { viewColumn: vscode.ViewColumn.One });
    await until("session of folder B", () => api.sessions.current?.folder === b.uri.toString());
    const second = api.sessions.current!.sessionId;
    assert.notEqual(second, first.sessionId);
    await vscode.window.showTextDocument(vscode.Uri.joinPath(a.uri, "calc.py"), { viewColumn: vscode.ViewColumn.One });
    await until("back to folder A's session", () => api.sessions.current?.sessionId === first.sessionId);
  });

  it("a prompt sent from the focused chat panel goes to the session it shows", async () => {
    await vscode.window.showTextDocument(vscode.Uri.joinPath(b.uri, "other.py"), { viewColumn: vscode.ViewColumn.One });
    await until("session of folder B", () => api.sessions.current?.folder === b.uri.toString());
    const shown = api.sessions.current!.sessionId;
    api.chat.show(); // the webview takes the focus: no active text editor
    await until("chat focused", () => !vscode.window.activeTextEditor, 5000).catch(() => undefined);
    const users: string[] = [];
    const d = api.daemon.onEvent((n) => {
      if (n.event.type === "message_end" && (n.event as { message?: { role?: string } }).message?.role === "user") users.push(n.sessionId);
    });
    try {
      api.chat.onMessage({ type: "send", text: "hello from B", mode: "prompt" });
      await until("the user message", () => users.length > 0);
      assert.deepEqual(users, [shown]);
      assert.equal(api.sessions.current?.sessionId, shown);
    } finally {
      d.dispose();
    }
  });

  it("a pinned session stays when another folder's editor becomes active", async () => {
    assert.equal(await vscode.commands.executeCommand("pi.pinSession"), true);
    const pinned = api.sessions.current!.sessionId;
    await vscode.window.showTextDocument(vscode.Uri.joinPath(b.uri, "other.py"), { viewColumn: vscode.ViewColumn.One });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(api.sessions.current?.sessionId, pinned);
    assert.equal(await vscode.commands.executeCommand("pi.pinSession"), false);
  });

  it("the Sessions view has one node per folder, and new sessions go to the given folder", async () => {
    const top = (await api.sessionsView.getChildren()) as { kind: string; uri: string }[];
    assert.deepEqual(top.map((r) => [r.kind, r.uri]), [["folder", a.uri.toString()], ["folder", b.uri.toString()]]);
    const id = (await vscode.commands.executeCommand("pi.newSession", { folder: b.uri.toString() })) as string;
    assert.equal(api.sessions.current?.sessionId, id);
    assert.equal(api.sessions.current?.folder, b.uri.toString());
    assert.equal(api.sessions.current?.cwd, b.uri.fsPath);
  });
});

// Inside code-server's extension host: every pi.* command against the real daemon and the
// scripted provider, an agent edit landing in an open unsaved editor and undone, permissions.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import * as vscode from "vscode";
import type { FromWebview } from "../../src/chat/messages";
import type { Api } from "../../src/extension";
import { until } from "../until";
import { METHODS, type BranchResult, type CompactionResult, type EventNotification, type SessionState, type TreeResult } from "../../src/protocol";

let api: Api;
const events: EventNotification[] = [];
/** Every method the extension asked the daemon (the tree must not be refetched during a turn). */
const requested: string[] = [];
const asked = (method: string): number => requested.filter((m) => m === method).length;
const ws = (): vscode.Uri => vscode.workspace.workspaceFolders![0].uri;

const count = (type: string): number => events.filter((e) => e.event.type === type).length;

describe("pi extension in the real extension host", () => {
  let user = "";
  let firstAnswer = "";

  before(async () => {
    const ext = vscode.extensions.getExtension<Api>("pi-lsp.pi-lsp");
    assert.ok(ext, "extension present");
    api = await ext.activate();
    await until("daemon", () => api.daemon.isRunning, 60000);
    api.sessions.listen({ event: (n) => void events.push(n) });
    const request = api.daemon.request.bind(api.daemon);
    api.daemon.request = (<R>(method: string, params?: unknown): Promise<R> => {
      requested.push(method);
      return request<R>(method, params as never);
    }) as typeof api.daemon.request;
  });

  it("starts the daemon from pi.server.command, passing the settings", () => {
    assert.equal(api.daemon.running?.source, "setting pi.server.command");
    const o = api.daemon.overrides();
    assert.equal(o.defaultModel, "openai/fake-model");
    assert.deepEqual(o.compaction, { keepRecentTokens: 10 });
    assert.equal((o.permissions as Record<string, unknown>).bash, "ask");
  });

  it("pi.openChat opens the panel with a session; pi.newSession returns a session id", async () => {
    const r = (await vscode.commands.executeCommand("pi.openChat")) as { sessionId: string };
    assert.match(r.sessionId, /^[0-9a-f-]{36}$/);
    await until("chat tab", () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === "pi")));
    const id = (await vscode.commands.executeCommand("pi.newSession")) as string;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.notEqual(id, r.sessionId);
    assert.equal(api.sessions.current?.sessionId, id);
  });

  it("pi.sendPrompt runs a turn: the edit lands in the open unsaved editor, bash asks permission", async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(ws(), "calc.py"));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(1, doc.lineAt(1).text.length), "  # unsaved"));
    assert.ok(doc.isDirty);
    const before = count("agent_end");
    const treeAsked = asked(METHODS.sessionTree);
    user = (await vscode.commands.executeCommand("pi.sendPrompt", "please fix add")) as string;
    assert.match(user, /^[0-9a-f]{8}$/);
    const [id, answer] = await until("permission prompt", () => [...api.permissions.entries()][0]);
    assert.ok(id);
    answer("allowOnce");
    await until("agent_end", () => count("agent_end") > before, 60000);
    assert.equal(doc.getText(), "def add(a, b):\n    return a + b  # unsaved\n", "edited in the buffer, unsaved comment kept");
    assert.ok(doc.isDirty, "not saved behind the user's back");
    assert.equal(asked(METHODS.sessionTree), treeAsked, "the tree followed the turn from entry_appended, without refetching it");
    // the status bar's context meter: model, thinking level, tokens of the model's window
    assert.match(api.status.text, /^\$\(comment-discussion\) pi (\d+\.\d%|\?)$/);
    assert.match(String(api.status.tooltip), /openai\/fake-model · thinking \w+ · (\d+|\?) \/ 100000 tokens/);
    const ran = events.find((e) => e.event.type === "tool_execution_end" && (e.event as { toolName?: string }).toolName === "bash");
    assert.ok(ran && !(ran.event as { isError?: boolean }).isError, "bash ran after allowOnce");
    assert.equal(api.before.get(path.join(ws().fsPath, "calc.py")), "def add(a, b):\n    return abs(a) + b  # unsaved\n", "text before the turn kept for Open diff");
    // the panel's "Open diff": the text before the turn against the buffer now
    api.chat.onMessage({ type: "openDiff", path: "calc.py" });
    const diffTab = await until("diff tab", () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff));
    const input = diffTab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.scheme, "pi-before");
    assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), "def add(a, b):\n    return abs(a) + b  # unsaved\n");
    assert.equal(input.modified.fsPath, doc.uri.fsPath);
    await vscode.window.tabGroups.close(diffTab);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    await until("undo", () => doc.getText() === "def add(a, b):\n    return abs(a) + b  # unsaved\n", 5000);
  });

  it("the tree view model follows the turn (entry_appended), leaf on the active path", async () => {
    const r = (await vscode.commands.executeCommand("pi.showTree")) as { nodes: number; leafId: string };
    assert.ok(r.nodes >= 8, `nodes ${r.nodes}`);
    assert.equal(r.leafId, api.sessions.current?.leafId);
    // what the events built is what the daemon's tree says now
    const fresh = await api.daemon.request<TreeResult>(METHODS.sessionTree, { sessionId: api.sessions.current!.sessionId });
    assert.deepEqual([...api.tree.model.nodes.keys()].sort(), fresh.nodes.map((n) => n.id).sort());
    assert.equal(api.tree.model.leafId, fresh.leafId);
    const userNode = api.tree.model.nodes.get(user);
    assert.ok(userNode?.onActivePath);
    firstAnswer = [...api.tree.model.nodes.values()].find((n) => n.role === "assistant" && n.preview.startsWith("Fixed"))!.id;
    assert.ok(firstAnswer);
  });

  it("pi.showTree with an entry id reveals and selects its row (the foreign-entries note's Show in tree)", async () => {
    const r = (await vscode.commands.executeCommand("pi.showTree", { entryId: user })) as { revealed: boolean };
    assert.equal(r.revealed, true);
    await until("row selected", () => api.tree.view?.selection.some((row) => row.kind === "node" && row.id === user));
    const none = (await vscode.commands.executeCommand("pi.showTree", { entryId: "no-such-entry" })) as { revealed: boolean };
    assert.equal(none.revealed, false);
  });

  it("pi.labelEntry sets and clears a label", async () => {
    const id = (await vscode.commands.executeCommand("pi.labelEntry", { entryId: user, label: "the question" })) as string;
    assert.match(id, /^[0-9a-f]{8}$/);
    assert.equal(api.tree.model.nodes.get(user)?.label, "the question");
    await vscode.commands.executeCommand("pi.labelEntry", { entryId: user, label: null });
    assert.equal(api.tree.model.nodes.get(user)?.label, null);
  });

  it("a chat panel reopened on the session comes with its first screen in its HTML: adopted, no reset posted", async () => {
    api.chat.panel?.dispose();
    const readies = api.chat.received.filter((m) => m.type === "ready").length;
    const painted = new Promise<Extract<FromWebview, { type: "painted" }>>((resolve) => {
      const d = api.chat.onPainted((m) => {
        if (m.kind === "reset") {
          d.dispose();
          resolve(m);
        }
      });
    });
    const posted: string[] = [];
    api.chat.show();
    const webview = api.chat.webview!;
    const post = webview.postMessage.bind(webview);
    webview.postMessage = (m: { type: string }) => {
      posted.push(m.type);
      return post(m);
    };
    const p = await painted;
    const ready = api.chat.received.filter((m) => m.type === "ready")[readies] as Extract<FromWebview, { type: "ready" }>;
    assert.equal(ready.initial, true, "the page said its HTML held the messages");
    assert.equal(p.prerendered, true);
    assert.ok(p.items > 0 && p.shown > 0, `painted ${p.shown} of ${p.items}`);
    api.chat.notice("info", "posts are seen here"); // the interception itself works
    assert.deepEqual(posted, ["notice"]);
  });

  it("pi.chat.location sidebar: pi.openChat shows the Chat view, with its first screen; shown again, it is not reloaded", async () => {
    const cfg = vscode.workspace.getConfiguration("pi");
    api.chat.panel?.dispose();
    await cfg.update("chat.location", "sidebar", vscode.ConfigurationTarget.Workspace);
    try {
      const readies = (): number => api.chat.received.filter((m) => m.type === "ready").length;
      const before = readies();
      const painted = new Promise<Extract<FromWebview, { type: "painted" }>>((resolve) => {
        const d = api.chat.onPainted((m) => {
          if (m.kind === "reset") {
            d.dispose();
            resolve(m);
          }
        });
      });
      const r = (await vscode.commands.executeCommand("pi.openChat")) as { sessionId: string };
      assert.equal(r.sessionId, api.sessions.current?.sessionId);
      const p = await painted;
      assert.ok(api.chat.view?.visible, "the Chat view is shown");
      assert.equal(api.chat.panel, null, "no editor tab");
      assert.equal(p.prerendered, true, "its HTML held the first screen");
      assert.equal(readies(), before + 1);
      await vscode.commands.executeCommand("workbench.action.closeSidebar");
      await until("view hidden", () => !api.chat.view?.visible);
      await vscode.commands.executeCommand("pi.openChat");
      await until("view shown again", () => api.chat.view?.visible);
      // the same page (retained while hidden): no second ready, and it still answers
      const frame = new Promise<unknown>((resolve) => {
        const d = api.chat.onPainted((m) => m.kind === "frame" && (d.dispose(), resolve(m)));
      });
      api.chat.post({ type: "bench", events: false, frame: true });
      await frame;
      assert.equal(readies(), before + 1, "not reloaded");
    } finally {
      await cfg.update("chat.location", undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand("workbench.action.closeSidebar");
    }
    api.chat.show();
    await until("chat tab again", () => api.chat.panel !== null && vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === "pi")));
  });

  it("pi.renameSession, pi.selectModel, pi.selectThinkingLevel return the new state", async () => {
    const s1 = (await vscode.commands.executeCommand("pi.renameSession", "Fix add()")) as SessionState;
    assert.equal(s1.sessionName, "Fix add()");
    const s2 = (await vscode.commands.executeCommand("pi.selectModel", "openai/fake-model-2")) as SessionState;
    assert.equal(s2.model?.modelId, "fake-model-2");
    const s3 = (await vscode.commands.executeCommand("pi.selectThinkingLevel", "high")) as SessionState;
    assert.equal(s3.thinkingLevel, "high");
  });

  it("a changed pi.* setting reaches the running daemon (didChangeConfiguration): a new session gets the new default model", async () => {
    const cfg = vscode.workspace.getConfiguration("pi");
    const old = cfg.inspect<string>("defaultModel")?.workspaceValue;
    const current = api.sessions.current!;
    await cfg.update("defaultModel", "openai/fake-model-2", vscode.ConfigurationTarget.Workspace);
    try {
      const model = await until("the new default in a new session", async () => {
        await vscode.commands.executeCommand("pi.newSession");
        return api.sessions.current?.model?.modelId === "fake-model-2" && api.sessions.current.model.modelId;
      }, 15000);
      assert.equal(model, "fake-model-2");
    } finally {
      await cfg.update("defaultModel", old, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand("pi.openSession", current.sessionFile);
      await api.tree.loaded;
    }
    assert.equal(api.sessions.current?.sessionId, current.sessionId, "back on the session");
  });

  it("pi.branchFromMessage with a summary: the leaf moves, a branch_summary node appears", async () => {
    const readNode = [...api.tree.model.nodes.values()].find((n) => n.role === "assistant" && n.preview.startsWith("Reading"))!;
    const r = (await vscode.commands.executeCommand("pi.branchFromMessage", { entryId: readNode.id, summarize: true, focus: "the fix" })) as BranchResult;
    assert.equal(r.moved, true);
    assert.ok(r.summaryEntryId);
    await until("summary node", () => api.tree.model.nodes.get(r.summaryEntryId!)?.type === "branch_summary");
    assert.equal(api.sessions.current?.leafId, r.leafId);
    assert.ok(!api.tree.model.nodes.get(firstAnswer)?.onActivePath, "the left branch is off the path");
  });

  it("pi.editMessage moves before the user message and returns its text", async () => {
    const r = (await vscode.commands.executeCommand("pi.editMessage", user)) as BranchResult;
    assert.equal(r.editorText, "please fix add");
    // The tree follows the daemon's events, which may reach the extension after the answer.
    await until("tree leaf", () => api.tree.model.leafId === r.leafId);
  });

  it("a click on a tree row goes there (the row's command, no prompt); pi.compact compacts (focus) and returns the result", async () => {
    const row = api.tree.getTreeItem({ kind: "node", id: firstAnswer });
    assert.equal(row.command?.command, "pi.branchFromMessage");
    const moved = (await vscode.commands.executeCommand(row.command.command, ...(row.command.arguments ?? []))) as BranchResult;
    assert.equal(moved.leafId, firstAnswer);
    assert.equal(api.sessions.current?.leafId, firstAnswer);
    const r = (await vscode.commands.executeCommand("pi.compact", { focus: "the fix" })) as CompactionResult;
    assert.match(r.summary, /Fix add\(\)/);
    assert.ok(r.tokensBefore > 0);
    const node = await until("compaction node", () => [...api.tree.model.nodes.values()].find((n) => n.type === "compaction"));
    // its row in the tree shows the summary (a compaction is not silent), as its own kind of row
    const item = api.tree.getTreeItem({ kind: "node", id: node.id });
    assert.match(String(item.label), /Fix add\(\)/);
    assert.equal(item.contextValue, "entry.compaction");
  });

  it("pi.abort stops a streaming turn and returns the queued texts", async () => {
    const before = count("message_update");
    await vscode.commands.executeCommand("pi.sendPrompt", "take your time");
    await until("streaming", () => count("message_update") > before + 2);
    await vscode.commands.executeCommand("pi.sendPrompt", { text: "and be brief", mode: "followUp" });
    const r = (await vscode.commands.executeCommand("pi.abort")) as { queuedTexts: string[] };
    assert.deepEqual(r.queuedTexts, ["and be brief"]);
    await until("idle", () => api.sessions.current && !api.sessions.current.isStreaming);
  });

  it("pi.forkFromMessage opens a new session; pi.openSession goes back by path and by id", async () => {
    const old = api.sessions.current!;
    const forked = (await vscode.commands.executeCommand("pi.forkFromMessage", firstAnswer)) as string;
    assert.notEqual(forked, old.sessionId);
    assert.equal(api.sessions.current?.sessionId, forked);
    const back = (await vscode.commands.executeCommand("pi.openSession", old.sessionFile)) as string;
    assert.equal(back, old.sessionId);
    // The whole id: session ids are UUIDv7 (pi 1.6.0), so sessions made within a minute share
    // their first 8 characters (the timestamp).
    const byId = (await vscode.commands.executeCommand("pi.openSession", forked)) as string;
    assert.equal(byId, forked);
  });

  it("the Sessions view lists the folder's sessions newest first, marks the open one, filters", async () => {
    const rows = (await api.sessionsView.getChildren()) as { kind: string; info: { path: string; name?: string | null; modified: string } }[];
    assert.ok(rows.length >= 2, `rows ${rows.length}`);
    const times = rows.map((r) => Date.parse(r.info.modified));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");
    const open = rows.find((r) => r.info.path === api.sessions.current?.sessionFile);
    assert.ok(open, "the open session is listed");
    assert.match(String(api.sessionsView.getTreeItem(open as never).description), /open/);
    await vscode.commands.executeCommand("pi.filterSessions", api.sessions.current!.sessionId);
    const filtered = (await api.sessionsView.getChildren()) as typeof rows;
    assert.deepEqual(filtered.map((r) => r.info.path), [api.sessions.current!.sessionFile]);
    await vscode.commands.executeCommand("pi.filterSessions", "");
    assert.equal(((await api.sessionsView.getChildren()) as typeof rows).length, rows.length);
  });

  it("a denied permission becomes the tool's error; an ignored one is denied after the timeout", async () => {
    await vscode.workspace.getConfiguration("pi").update("permissions.timeoutMs", 1500, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand("pi.newSession");
      const closed: (string | undefined)[] = [];
      const permissionClosed = api.chat.permissionClosed.bind(api.chat);
      api.chat.permissionClosed = (requestId, note) => {
        closed.push(note);
        permissionClosed(requestId, note);
      };
      const before = count("agent_end");
      await vscode.commands.executeCommand("pi.sendPrompt", "please fix add");
      await until("agent_end", () => count("agent_end") > before, 60000);
      api.chat.permissionClosed = permissionClosed;
      assert.ok(closed.some((n) => /^No answer to "echo tests pass" within 2 s: denied\.$/.test(n ?? "")), `the panel's note: ${JSON.stringify(closed)}`);
      const end = [...events].reverse().find((e) => e.event.type === "tool_execution_end" && (e.event as { toolName?: string }).toolName === "bash");
      assert.ok(end && (end.event as { isError?: boolean }).isError, "bash refused after the timeout");
      assert.equal(api.permissions.size, 0, "nothing left hanging");
    } finally {
      await vscode.workspace.getConfiguration("pi").update("permissions.timeoutMs", undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("a malformed or unknown pi/event is ignored with a log line; the chat keeps working", async () => {
    const lines: string[] = [];
    const log = api.sessions.log;
    api.sessions.log = (line) => {
      lines.push(line);
      log(line);
    };
    // delivered as the language client delivers pi/event notifications
    const inject = (n: unknown): void => (api.daemon as unknown as { events: vscode.EventEmitter<unknown> }).events.fire(n);
    try {
      inject({ sessionId: 42, event: "not an object" });
      inject(null);
      assert.equal(lines.filter((l) => l.startsWith("ignored a malformed pi/event")).length, 2, lines.join("\n"));
      const state = api.sessions.current!;
      inject({ sessionId: state.sessionId, seq: (await api.daemon.request<SessionState>(METHODS.sessionState, { sessionId: state.sessionId })).lastSeq + 1, event: { type: "no_such_event" } });
      const before = count("agent_end");
      const entryId = (await vscode.commands.executeCommand("pi.sendPrompt", "still there after a bad event?")) as string;
      assert.match(entryId, /^[0-9a-f]{8}$/);
      await until("agent_end", () => count("agent_end") > before, 60000);
      assert.equal(lines.filter((l) => l.includes("seq jumped")).length, 0, "no reload for the injected event");
    } finally {
      api.sessions.log = log;
    }
  });

  it("a missing daemon: pi.restartServer says what was tried; fixing the setting starts it again", async () => {
    const cfg = vscode.workspace.getConfiguration("pi");
    const good = cfg.get<string[]>("server.command");
    await cfg.update("server.command", ["/nonexistent/pi-lsp"], vscode.ConfigurationTarget.Workspace);
    try {
      const started = await vscode.commands.executeCommand("pi.restartServer");
      if (started) assert.equal(api.daemon.running?.source, "pi-lsp on PATH", "fell back to PATH");
      else {
        assert.match(api.daemon.lastError ?? "", /Tried: setting pi\.server\.command: \/nonexistent\/pi-lsp --log-level|Tried: setting pi\.server\.command: \/nonexistent\/pi-lsp/);
        assert.match(api.daemon.lastError ?? "", /Fix: .*pi\.server\.command/);
        await assert.rejects(vscode.commands.executeCommand("pi.newSession") as Promise<unknown>);
      }
    } finally {
      await cfg.update("server.command", good, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(await vscode.commands.executeCommand("pi.restartServer"), true);
    assert.equal(api.daemon.running?.source, "setting pi.server.command");
  });

  it("a daemon that crashes: a clear message, no hung requests, restart brings the session back", async () => {
    await vscode.commands.executeCommand("pi.newSession");
    await vscode.commands.executeCommand("pi.sendPrompt", "please fix add");
    const old = api.sessions.current!;
    const pid = api.daemon.pid;
    assert.ok(pid, "daemon pid");
    process.kill(pid, "SIGKILL");
    await until("stopped", () => !api.daemon.isRunning && api.daemon.lastStopped, 15000);
    assert.match(api.daemon.lastStopped!, /stopped unexpectedly/);
    for (const answer of api.permissions.values()) answer("deny");
    assert.equal(await vscode.commands.executeCommand("pi.restartServer"), true);
    await until("reopened", () => api.sessions.current && api.sessions.current.sessionFile === old.sessionFile, 30000);
  });

  it("pi.restartServer restarts the daemon and reopens the session", async () => {
    const old = api.sessions.current!;
    assert.equal(await vscode.commands.executeCommand("pi.restartServer"), true);
    await until("reopened", () => api.sessions.current && api.sessions.current.sessionFile === old.sessionFile, 30000);
  });
});

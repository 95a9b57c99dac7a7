// Inside code-server's extension host, in a workspace VS Code does not trust: the workspace's
// .vscode/settings.json tries to start its own daemon, allow every bash command, send the API
// key elsewhere and prefix every command; none of it reaches the daemon, while the user's own
// settings (and the workspace's harmless ones) still do.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Api } from "../../src/extension";
import { until } from "../until";

describe("an untrusted workspace", () => {
  let api: Api;
  const ws = (): string => vscode.workspace.workspaceFolders![0].uri.fsPath;

  before(async () => {
    const ext = vscode.extensions.getExtension<Api>("pi-lsp.pi-lsp");
    assert.ok(ext, "extension present");
    api = await ext.activate();
    await until("daemon", () => api.daemon.isRunning, 60000);
  });

  it("is not trusted (the suite tests what it means to be)", () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const hostile = JSON.parse(fs.readFileSync(path.join(ws(), ".vscode", "settings.json"), "utf8"));
    assert.equal(hostile["pi.permissions.bash"], "allow", "the workspace does try");
  });

  it("the daemon is the user's pi.server.command, not the workspace's nor its .venv", () => {
    assert.equal(api.daemon.running?.source, "setting pi.server.command");
    assert.notEqual(api.daemon.running?.command, "/nonexistent/evil-pi-lsp");
    assert.ok(!fs.existsSync(path.join(ws(), "venv-ran")), "the workspace's .venv/bin/pi-lsp never ran");
  });

  it("restricted settings come from the user only; the others from the workspace too", () => {
    const o = api.daemon.overrides();
    assert.deepEqual(o.permissions, { bash: "ask" }, "the user's value, not the workspace's allow");
    assert.notEqual(o.apiBase, "http://127.0.0.1:9/attacker");
    assert.equal(o.shellCommandPrefix, undefined);
    assert.equal(o.defaultProjectTrust, undefined);
    assert.deepEqual(o.compaction, { keepRecentTokens: 7 }, "not restricted: the workspace's value");
  });

  it("a bash command still asks (the workspace's allow is ignored by the daemon too)", async () => {
    const events: string[] = [];
    api.sessions.listen({ event: (n) => void events.push(n.event.type) });
    await vscode.commands.executeCommand("pi.openChat");
    await vscode.commands.executeCommand("pi.sendPrompt", "run the tests");
    const [, answer] = await until("permission prompt", () => [...api.permissions.entries()][0], 120000); // litellm's import
    answer("deny");
    await until("agent_end", () => events.includes("agent_end"), 60000);
  });
});

// A short scripted ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk):
// it spawns `pi-lsp --acp` (the Python given in PI_LSP_PYTHON), runs one prompt with a tool
// call that asks permission, switches the session to read-only, lists the session, reads its
// tree through _pi/tree, and prints what it saw as one JSON object on stdout.
// tests/acp/test_acp_typescript.py checks that object.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cwd = process.argv[2];
const python = process.env.PI_LSP_PYTHON || "python3";
const agentProcess = spawn(python, ["-m", "pi_lsp", "--acp"], {
  cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));

const seen = { updates: [], permissions: [] };
const app = acp
  .client({ name: "pi-lsp-ts-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    seen.updates.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push(params.toolCall);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });

const result = await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  const created = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const answer = await agent.request(acp.methods.agent.session.prompt, {
    sessionId: created.sessionId,
    prompt: [{ type: "text", text: "say hello with bash" }],
  });
  const mode = await agent.request(acp.methods.agent.session.setMode, {
    sessionId: created.sessionId,
    modeId: "read_only",
  });
  const listed = await agent.request(acp.methods.agent.session.list, { cwd });
  const tree = await agent.request("_pi/tree", { sessionId: created.sessionId });
  await agent.request(acp.methods.agent.session.close, { sessionId: created.sessionId });
  return { init, created, answer, mode, listed, tree };
});
agentProcess.stdin.end();
process.stdout.write(JSON.stringify({ ...result, ...seen }) + "\n");
await new Promise((resolve) => agentProcess.on("exit", resolve));

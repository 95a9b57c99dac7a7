// The extension-host test runner (what @vscode/test-electron would load): mocha over the
// bundled *.test.js next to this file; results also go to $PI_TEST_RESULT as JSON.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "bdd", timeout: 60000, color: false });
  for (const f of readdirSync(__dirname).filter((f) => f.endsWith(".test.js")).sort()) mocha.addFile(join(__dirname, f));
  const tests: { title: string; ok: boolean; error?: string }[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.PI_TEST_RESULT;
      if (out) writeFileSync(out, JSON.stringify({ passed: tests.filter((t) => t.ok).length, failed: tests.filter((t) => !t.ok).length, tests }));
      if (failures) reject(new Error(`${failures} tests failed`));
      else resolve();
    });
    runner.on("pass", (t) => tests.push({ title: t.fullTitle(), ok: true }));
    runner.on("fail", (t, err) => tests.push({ title: t.fullTitle(), ok: false, error: String((err as Error)?.stack ?? err).slice(0, 1500) }));
  });
}

#!/usr/bin/env node
// Bundles the extension (out/extension.js, Node, vscode external), the chat webview
// (media/chat.js, browser IIFE, markdown-it and highlight.js inside) and the tests
// (out-test/: unit tests for node --test, the extension-host mocha suite).
import { build } from "esbuild";
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const prod = process.argv.includes("--production");
const common = { bundle: true, sourcemap: !prod, minify: prod, logLevel: "warning", absWorkingDir: root };
const tests = (dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f));

await Promise.all([
  build({ ...common, entryPoints: ["src/extension.ts"], outfile: "out/extension.js", platform: "node", format: "cjs", target: "node18", external: ["vscode"] }),
  build({ ...common, entryPoints: ["webview/chat.ts"], outfile: "media/chat.js", platform: "browser", format: "iife", target: "chrome110" }),
  // the panel's HTML builder, for the webview tests and benchmark (test/webview/serve.mjs)
  build({ ...common, entryPoints: ["src/chat/page.ts"], outfile: "out-test/page.js", platform: "node", format: "cjs", target: "node18" }),
  build({ ...common, entryPoints: tests("test/unit"), outdir: "out-test/unit", platform: "node", format: "cjs", target: "node18", external: ["vscode"] }),
  build({ ...common, entryPoints: tests("test/suite"), outdir: "out-test/suite", platform: "node", format: "cjs", target: "node18", external: ["vscode", "mocha"] }),
  build({ ...common, entryPoints: tests("test/multiroot"), outdir: "out-test/multiroot", platform: "node", format: "cjs", target: "node18", external: ["vscode", "mocha"] }),
  build({ ...common, entryPoints: tests("test/untrusted"), outdir: "out-test/untrusted", platform: "node", format: "cjs", target: "node18", external: ["vscode", "mocha"] }),
  build({ ...common, entryPoints: tests("bench/suite"), outdir: "out-test/bench", platform: "node", format: "cjs", target: "node18", external: ["vscode", "mocha"] }),
]);

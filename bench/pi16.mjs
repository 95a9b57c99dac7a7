// Loading pi 1.6.0's modules for the bench's Node scripts (pi_branch.mjs, pi_compaction.mjs).
// PI16_PACKAGE names the @earendil-works/pi-coding-agent folder; `piModule("index.js")` imports
// its dist/index.js, `piModule("core", "compaction", "compaction.js")` a module the index does
// not export.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const piRoot = process.env.PI16_PACKAGE;
if (!piRoot) {
  console.error("PI16_PACKAGE must name the @earendil-works/pi-coding-agent folder");
  process.exit(2);
}

export function piModule(...parts) {
  return import(pathToFileURL(join(piRoot, "dist", ...parts)).href);
}

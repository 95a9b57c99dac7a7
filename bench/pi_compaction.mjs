// pi 1.6.0's side of bench/bench_compaction.py: opens a session with pi's own SessionManager and
// times what pi's AgentSession does before a compaction's model call, in-process:
// `getBranch()` then `prepareCompaction(pathEntries, DEFAULT_COMPACTION_SETTINGS)`.
//
// Usage: PI16_PACKAGE=<@earendil-works/pi-coding-agent folder> node pi_compaction.mjs FILE RUNS SCRATCH
// Prints one JSON line: {"entries", "path", "summarized", "firstKept", "branch": [ms...],
// "prepare": [ms...]}, one time per repetition after a warm-up of RUNS / 10 + 1 rounds.
// (prepareCompaction is not exported from the package index; its module is imported by path.)
import { piModule } from "./pi16.mjs";

const [file, runsText, scratch] = process.argv.slice(2);
const runs = Number(runsText);
const { SessionManager } = await piModule("index.js");
const { prepareCompaction, DEFAULT_COMPACTION_SETTINGS } = await piModule(
  "core",
  "compaction",
  "compaction.js",
);

const sm = SessionManager.open(file, scratch);
let preparation;
let pathLength = 0;

function round(branch, prepare) {
  let start = process.hrtime.bigint();
  const pathEntries = sm.getBranch();
  let end = process.hrtime.bigint();
  branch.push(Number(end - start) / 1e6);
  pathLength = pathEntries.length;
  start = process.hrtime.bigint();
  preparation = prepareCompaction(pathEntries, DEFAULT_COMPACTION_SETTINGS);
  end = process.hrtime.bigint();
  prepare.push(Number(end - start) / 1e6);
}

for (let i = 0; i < Math.floor(runs / 10) + 1; i++) round([], []);
const branch = [];
const prepare = [];
for (let i = 0; i < runs; i++) round(branch, prepare);
process.stdout.write(
  `${JSON.stringify({
    entries: sm.getEntries().length,
    path: pathLength,
    summarized: preparation?.messagesToSummarize.length ?? 0,
    firstKept: preparation?.firstKeptEntryId ?? null,
    branch,
    prepare,
  })}\n`,
);

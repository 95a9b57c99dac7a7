// pi 1.6.0's side of bench/bench_branch.py: opens a session with pi's own SessionManager and
// times `branch(middle)` + `buildSessionContext()` (and the way back to the leaf) in-process.
//
// Usage: PI16_PACKAGE=<@earendil-works/pi-coding-agent folder> node pi_branch.mjs FILE RUNS
// Prints one JSON line: {"entries", "middle", "leaf", "messagesMiddle", "toMiddle": [ms...],
// "toLeaf": [ms...]}, one time per repetition after a warm-up of RUNS / 10 rounds.
import { piModule } from "./pi16.mjs";

const [file, runsText, scratch] = process.argv.slice(2);
const runs = Number(runsText);
const { SessionManager } = await piModule("index.js");

const sm = SessionManager.open(file, scratch);
const entries = sm.getEntries();
const middle = entries[Math.floor(entries.length / 2)].id;
const leaf = sm.getLeafId();
let messagesMiddle = 0;

function round(toMiddle, toLeaf) {
  let start = process.hrtime.bigint();
  sm.branch(middle);
  messagesMiddle = sm.buildSessionContext().messages.length;
  let end = process.hrtime.bigint();
  toMiddle.push(Number(end - start) / 1e6);
  start = process.hrtime.bigint();
  sm.branch(leaf);
  sm.buildSessionContext();
  end = process.hrtime.bigint();
  toLeaf.push(Number(end - start) / 1e6);
}

for (let i = 0; i < Math.max(1, Math.floor(runs / 10)); i++) round([], []);
const toMiddle = [];
const toLeaf = [];
for (let i = 0; i < runs; i++) round(toMiddle, toLeaf);
process.stdout.write(
  `${JSON.stringify({ entries: entries.length, middle, leaf, messagesMiddle, toMiddle, toLeaf })}\n`,
);

// pi 1.6.0's side of bench/bench_branch.py: opens a session with pi's own SessionManager and
// times `branch(middle)` + `buildSessionContext()` (and the way back to the leaf) in-process,
// then opens the file FRESH more times and times each open and the first branch(middle) +
// buildSessionContext() on the manager it made.
//
// Usage: PI16_PACKAGE=<@earendil-works/pi-coding-agent folder> [PI_LSP_BENCH_CLOCK=cpu]
//   node pi_branch.mjs FILE RUNS SCRATCH [FRESH]
// Prints one JSON line: {"entries", "middle", "leaf", "messagesMiddle", "toMiddle": [ms...],
// "toLeaf": [ms...], "freshOpen": [ms...], "freshFirst": [ms...]}, one time per repetition
// after a warm-up of RUNS / 10 rounds (and FRESH / 10 opens). With PI_LSP_BENCH_CLOCK=cpu the
// fresh times are this process's CPU time (process.cpuUsage: user + system, every thread), as
// bench/common.py's CLOCK measures Python's; otherwise, and always for the warm rounds (a few
// microseconds each, less than one cpuUsage call costs under load), wall time.
import { piModule } from "./pi16.mjs";

const [file, runsText, scratch, freshText] = process.argv.slice(2);
const runs = Number(runsText);
const fresh = Number(freshText ?? 0);
const { SessionManager } = await piModule("index.js");

function wall() {
  return Number(process.hrtime.bigint()) / 1e6;
}
function cpuTime() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e3;
}
const freshClock = process.env.PI_LSP_BENCH_CLOCK === "cpu" ? cpuTime : wall;

const sm = SessionManager.open(file, scratch);
const entries = sm.getEntries();
const middle = entries[Math.floor(entries.length / 2)].id;
const leaf = sm.getLeafId();
let messagesMiddle = 0;

function round(toMiddle, toLeaf) {
  let start = wall();
  sm.branch(middle);
  messagesMiddle = sm.buildSessionContext().messages.length;
  let end = wall();
  toMiddle.push(end - start);
  start = wall();
  sm.branch(leaf);
  sm.buildSessionContext();
  end = wall();
  toLeaf.push(end - start);
}

for (let i = 0; i < Math.max(1, Math.floor(runs / 10)); i++) round([], []);
const toMiddle = [];
const toLeaf = [];
for (let i = 0; i < runs; i++) round(toMiddle, toLeaf);

function openOnce(freshOpen, freshFirst) {
  const start = freshClock();
  const opened = SessionManager.open(file, scratch);
  const mid = freshClock();
  opened.branch(middle);
  opened.buildSessionContext();
  const end = freshClock();
  freshOpen.push(mid - start);
  freshFirst.push(end - mid);
}

const freshOpen = [];
const freshFirst = [];
if (fresh > 0) {
  for (let i = 0; i < Math.max(1, Math.floor(fresh / 10)); i++) openOnce([], []);
  for (let i = 0; i < fresh; i++) openOnce(freshOpen, freshFirst);
}
process.stdout.write(
  `${JSON.stringify({ entries: entries.length, middle, leaf, messagesMiddle, toMiddle, toLeaf, freshOpen, freshFirst })}\n`,
);

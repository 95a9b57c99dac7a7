// pi 1.6.0 as an oracle: reads requests (one JSON object per line) on stdin and answers each
// with one JSON line on stdout, computed by pi's own library code (dist/index.js and
// dist/core/compaction/compaction.js). The Python interop tests start one process per batch.
//
// A request: {"file": PATH, "leafId"?: ID, "keepRecentTokens"?: N, "copy"?: true,
//             "cuts"?: [{"start", "end", "keep"}]}  (raw findCutPoint over the branch)
// An answer: {"file", "leafId", "sessionId", "sessionName", "context", "compaction", "entryCount"}
// or {"file", "error"} when pi refuses the file. pi may write to a file it opens (a "\n" after a
// torn last line, in-place migration), so with "copy" (the default) it opens a temporary copy.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const piRoot = process.env.PI16_PACKAGE;
if (!piRoot) {
  console.error("PI16_PACKAGE must name the @earendil-works/pi-coding-agent folder");
  process.exit(2);
}
const lib = await import(pathToFileURL(join(piRoot, "dist", "index.js")).href);
const cp = await import(pathToFileURL(join(piRoot, "dist", "core", "compaction", "compaction.js")).href);
const { SessionManager, buildSessionContext } = lib;
const { prepareCompaction, estimateTokens, findCutPoint, DEFAULT_COMPACTION_SETTINGS } = cp;

const scratch = mkdtempSync(join(tmpdir(), "pi-oracle-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

function sorted(set) {
  return [...set].sort();
}

function answer(request, index) {
  const file = resolve(request.file);
  let path = file;
  if (request.copy !== false) {
    path = join(scratch, `${index}.jsonl`);
    copyFileSync(file, path);
  }
  const sm = SessionManager.open(path, scratch);
  const leafId = request.leafId === undefined ? sm.getLeafId() : request.leafId;
  const entries = sm.getEntries();
  const context = buildSessionContext(entries, leafId);
  const branch = leafId === null ? [] : sm.getBranch(leafId ?? undefined);
  const out = {
    file: request.file,
    leafId,
    sessionId: sm.getSessionId(),
    sessionName: sm.getSessionName() ?? null,
    entryCount: entries.length,
    context,
    tokens: context.messages.map((m) => estimateTokens(m)),
    compaction: null,
  };
  if (request.keepRecentTokens !== undefined) {
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: request.keepRecentTokens };
    const prep = prepareCompaction(branch, settings);
    if (prep) {
      out.compaction = {
        firstKeptEntryId: prep.firstKeptEntryId,
        isSplitTurn: prep.isSplitTurn,
        tokensBefore: prep.tokensBefore,
        previousSummary: prep.previousSummary ?? null,
        messagesToSummarize: prep.messagesToSummarize,
        turnPrefixMessages: prep.turnPrefixMessages,
        readFiles: sorted(prep.fileOps.read),
        writtenFiles: sorted(prep.fileOps.written),
        editedFiles: sorted(prep.fileOps.edited),
      };
    }
  }
  if (request.cuts) {
    out.cuts = request.cuts.map(({ start, end, keep }) => findCutPoint(branch, start, end, keep));
  }
  if (path !== file) rmSync(path, { force: true });
  return out;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let index = 0;
for await (const line of lines) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  let out;
  try {
    out = answer(request, index++);
  } catch (error) {
    out = { file: request.file, error: String(error?.message ?? error) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

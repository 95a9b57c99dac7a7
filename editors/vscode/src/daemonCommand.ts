// Which command starts the daemon, in the order the README promises: the `pi.server.command`
// setting, else `pi-lsp` on PATH, else a workspace folder's `.venv/bin/pi-lsp`. Pure, so the
// order and the failure message are unit-tested. An untrusted workspace's .venv is skipped.
import * as path from "node:path";

export interface Candidate {
  command: string;
  args: string[];
  /** Where it came from, for the failure message. */
  source: string;
}

export interface Lookup {
  setting: readonly string[];
  pathEnv: string;
  folders: readonly string[];
  exists: (file: string) => boolean;
  /** An untrusted workspace's own .venv/bin/pi-lsp is never started (it is the workspace's code). */
  trusted: boolean;
}

export function candidates(look: Lookup): Candidate[] {
  const out: Candidate[] = [];
  if (look.setting.length > 0 && look.setting[0]) {
    out.push({ command: look.setting[0], args: [...look.setting.slice(1)], source: "setting pi.server.command" });
  }
  for (const dir of look.pathEnv.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, "pi-lsp");
    if (look.exists(file)) {
      out.push({ command: file, args: [], source: "pi-lsp on PATH" });
      break;
    }
  }
  for (const folder of look.trusted ? look.folders : []) {
    const file = path.join(folder, ".venv", "bin", "pi-lsp");
    if (look.exists(file)) out.push({ command: file, args: [], source: `workspace ${file}` });
  }
  return out;
}

/** The one notification shown when nothing started: what was tried and how to fix it. */
export function failureMessage(tried: readonly { candidate: Candidate | null; error: string }[], look: Lookup): string {
  const lines = tried.map((t) =>
    t.candidate ? `${t.candidate.source}: ${[t.candidate.command, ...t.candidate.args].join(" ")} → ${t.error}` : t.error,
  );
  if (!look.setting.length) lines.push("pi.server.command is not set");
  if (!tried.some((t) => t.candidate?.source === "pi-lsp on PATH")) lines.push("no pi-lsp on PATH");
  if (!look.trusted) lines.push("the workspace is not trusted, so neither its .venv/bin/pi-lsp nor its pi.server.command is used");
  else if (!tried.some((t) => t.candidate?.source.startsWith("workspace"))) {
    lines.push(`no .venv/bin/pi-lsp in ${look.folders.length ? look.folders.join(", ") : "the workspace (no folder open)"}`);
  }
  return (
    "pi: the pi_lsp daemon did not start. Tried: " + lines.join("; ") +
    ". Fix: install the daemon (`pip install /path/to/pi_lsp`; in a pi_lsp checkout `make demo` creates .venv/bin/pi-lsp) " +
    "or set pi.server.command to its command, then run \"pi: Restart Server\"."
  );
}

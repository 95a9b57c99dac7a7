// Event sequences captured from the real daemon by scripts/capture_events.py (npm run capture).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { EventNotification, MessagesResult, TreeResult } from "../../src/protocol";

export interface Scenario {
  messagesBefore: MessagesResult;
  treeBefore: TreeResult;
  events: EventNotification[];
  serverRequests: { method: string; params: Record<string, unknown> }[];
  messagesAfter: MessagesResult;
  treeAfter: TreeResult;
}

export const root = join(__dirname, "..", "..");

export function scenario(name: "turn" | "abort" | "compact" | "branch" | "label" | "stale" | "foreign"): Scenario {
  return JSON.parse(readFileSync(join(root, "test", "fixtures", `${name}.json`), "utf8")) as Scenario;
}

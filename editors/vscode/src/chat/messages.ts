// Messages between the extension and the chat webview (both directions), one definition.
import type { PiEvent, SessionState } from "../protocol";
import type { PendingPermission } from "./model";

export type Entry = Record<string, unknown>;

export type ToWebview =
  | { type: "reset"; state: SessionState; entries: Entry[]; hasEarlier: boolean }
  | { type: "earlier"; entries: Entry[]; hasEarlier: boolean }
  | { type: "event"; event: PiEvent; seq: number }
  | { type: "permission"; request: PendingPermission }
  | { type: "permissionClosed"; requestId: string; note?: string }
  | { type: "setInput"; text: string }
  | { type: "notice"; level: "info" | "warning" | "error"; text: string }
  /** Benchmarks: report when each event's change was painted; `frame`: report the next frame
   * (a retained Chat view shown again paints nothing new). */
  | { type: "bench"; events: boolean; frame?: boolean };

export type MessageAction = "editAndBranch" | "branch" | "label" | "fork" | "copy";

export type FromWebview =
  /** The page's script ran; `timing` (epoch ms) breaks its load down for the benchmark:
   * the frame's navigation start, the script fetched and starting, and this message.
   * `initial`: the page came with its first messages in the HTML and shows them. */
  | { type: "ready"; initial?: boolean; timing?: { origin: number; scriptFetched: number | null; scriptStart: number; ready: number } }
  | { type: "send"; text: string; mode: "prompt" | "steer" | "followUp" }
  | { type: "abort" }
  | { type: "permissionAnswer"; requestId: string; decision: "allowOnce" | "allowSession" | "deny" }
  | { type: "action"; action: MessageAction; entryId: string; text?: string }
  | { type: "loadEarlier" }
  | { type: "command"; command: "pickModel" | "pickThinking" | "compact" | "newSession" | "showTree" | "rename" | "restart" }
  | { type: "openDiff"; path: string }
  /** Show an entry in the session tree (the other program's branch of a foreign_entries note). */
  | { type: "reveal"; entryId: string }
  | { type: "copy"; text: string }
  /** After a reset (always) or an event (bench mode): the frame that shows it, in epoch ms. */
  /** `items` in the model, `shown` of them rendered in that frame (a reset paints the newest first).
   * `prerendered`: the reset was the page's own HTML, first painted at `firstContentfulPaint`. */
  | { type: "painted"; kind: "reset" | "event" | "frame"; seq?: number; at: number; items: number; shown: number; prerendered?: boolean; firstContentfulPaint?: number };

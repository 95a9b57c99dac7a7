// The chat panel's items and the reducer's small helpers: what a ChatModel (model.ts) holds and
// reports, shared by the renderer (render.ts), the webview and the messages (messages.ts).

export type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "toolCall"; id: string; name: string };

/** "none": a stored call whose result is not on this path (the branch was left before it ran). */
export type ToolStatus = "pending" | "running" | "done" | "error" | "none";

export interface ToolCard {
  id: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolStatus;
  output: string;
  diff: string | null;
  resultEntryId: string | null;
}

interface ItemBase {
  /** Stable key of the item's DOM element. */
  key: number;
  /** The session entry (data-entry-id); null until the daemon stored it. */
  entryId: string | null;
}
export type ChatItem =
  | (ItemBase & { kind: "user"; text: string })
  | (ItemBase & {
      kind: "assistant";
      blocks: Block[];
      streaming: boolean;
      stopReason: string | null;
      errorMessage: string | null;
    })
  | (ItemBase & { kind: "compaction"; pending: boolean; summary: string; tokensBefore: number | null; error: string | null })
  | (ItemBase & { kind: "branchSummary"; summary: string; fromId: string | null })
  | (ItemBase & { kind: "bash"; command: string; output: string; exitCode: number | null })
  | (ItemBase & { kind: "custom"; text: string })
  | (ItemBase & { kind: "notice"; level: "info" | "warning" | "error"; text: string })
  | (ItemBase & { kind: "changes"; files: string[] })
  /** Another program appended `entryIds` during this turn: a sibling branch ending at `tipId`. */
  | (ItemBase & { kind: "foreign"; entryIds: string[]; tipId: string });

export interface PendingPermission {
  requestId: string;
  kind: string;
  toolName: string;
  toolCallId: string;
  detail: string;
}

/** What an `apply` changed, for the renderer. */
export interface Change {
  /** Keys of items added or changed, in order. */
  items: number[];
  /** Tool cards changed (rendered inside their assistant item). */
  tools: string[];
  header: boolean;
  /** The whole list must be rebuilt (a reset). */
  reset: boolean;
  /** Set when the event was not understood: the caller logs it and goes on. */
  ignored?: string;
}

export type Json = Record<string, unknown>;
/** An item before it has its key (Omit over each member of the union). */
export type NewItem = ChatItem extends infer T ? (T extends ChatItem ? Omit<T, "key"> : never) : never;

export const str = (v: unknown): string => (typeof v === "string" ? v : "");
export const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

/** The text parts of a message's content (a string or a list of blocks). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => obj(b))
    .filter((b) => b.type === "text")
    .map((b) => str(b.text))
    .join("");
}

// The chat panel's state and its reducer: pi/session/messages entries, then the pi/event stream,
// folded into the items the panel shows. Pure (no DOM, no vscode): the webview renders what
// `apply` reports as changed, and the unit tests replay event sequences captured from the daemon.
import type { PiEvent, SessionState } from "../protocol";
import { contentText, obj, str, type Block, type Change, type ChatItem, type Json, type NewItem, type PendingPermission, type ToolCard } from "./items";

export type { Block, Change, ChatItem, PendingPermission, ToolCard, ToolStatus } from "./items";

const EDIT_TOOLS = new Set(["edit", "write"]);

export class ChatModel {
  items: ChatItem[] = [];
  tools = new Map<string, ToolCard>();
  state: SessionState | null = null;
  streaming = false;
  compacting = false;
  permissions: PendingPermission[] = [];
  /** Sum of the assistant messages' cost (USD) on the shown path. */
  cost = 0;
  private nextKey = 1;
  private byKey = new Map<number, ChatItem>();
  /** Files written by edit/write tools since the run began. */
  private runFiles: string[] = [];

  private change(): Change {
    return { items: [], tools: [], header: false, reset: false };
  }

  private add<T extends ChatItem>(item: NewItem, ch: Change): T {
    const full = { ...item, key: this.nextKey++ } as T;
    this.items.push(full);
    this.byKey.set(full.key, full);
    ch.items.push(full.key);
    return full;
  }

  item(key: number): ChatItem | undefined {
    return this.byKey.get(key);
  }

  /** Replace everything with a `pi/session/messages` answer (entries oldest first). */
  load(entries: readonly Json[], state: SessionState | null): Change {
    this.items = [];
    this.byKey.clear();
    this.tools.clear();
    this.cost = 0;
    this.permissions = [];
    this.state = state;
    this.streaming = state?.isStreaming ?? false;
    this.compacting = state?.isCompacting ?? false;
    const ch = this.change();
    for (const entry of entries) this.addEntry(entry, ch);
    const running = this.streaming ? this.lastAssistant() : undefined;
    for (const card of this.tools.values()) {
      const live = running?.blocks.some((b) => b.type === "toolCall" && b.id === card.id);
      if (card.status === "pending" && !live) card.status = "none";
    }
    ch.reset = true;
    ch.header = true;
    return ch;
  }

  /** Items for stored entries older than the shown ones (paging back through a big session). */
  prepend(entries: readonly Json[]): Change {
    const tail = this.items;
    this.items = [];
    const ch = this.change();
    for (const entry of entries) this.addEntry(entry, ch);
    this.items.push(...tail);
    ch.reset = true;
    return ch;
  }

  private addEntry(entry: Json, ch: Change): void {
    const id = str(entry.id) || null;
    switch (entry.type) {
      case "message":
        this.addMessage(obj(entry.message), id, ch);
        return;
      case "compaction":
        this.add({ kind: "compaction", entryId: id, pending: false, summary: str(entry.summary),
          tokensBefore: typeof entry.tokensBefore === "number" ? entry.tokensBefore : null, error: null }, ch);
        return;
      case "branch_summary":
        this.add({ kind: "branchSummary", entryId: id, summary: str(entry.summary), fromId: str(entry.fromId) || null }, ch);
        return;
      case "custom_message":
        this.add({ kind: "custom", entryId: id, text: contentText(entry.content) }, ch);
        return;
      default:
        return; // model/thinking changes, labels, names: shown in the header and the tree
    }
  }

  private addMessage(message: Json, entryId: string | null, ch: Change): void {
    switch (message.role) {
      case "user":
        this.add({ kind: "user", entryId, text: contentText(message.content) }, ch);
        return;
      case "assistant": {
        const item = this.add<Extract<ChatItem, { kind: "assistant" }>>(
          { kind: "assistant", entryId, blocks: [], streaming: false, stopReason: null, errorMessage: null }, ch);
        this.finishAssistant(item, message, entryId, ch);
        return;
      }
      case "toolResult":
        this.toolResult(message, entryId, ch);
        return;
      case "bashExecution":
        this.add({ kind: "bash", entryId, command: str(message.command), output: str(message.output),
          exitCode: typeof message.exitCode === "number" ? message.exitCode : null }, ch);
        return;
      case "custom":
      case "hookMessage":
        if (message.display !== false) this.add({ kind: "custom", entryId, text: contentText(message.content) }, ch);
        return;
      default:
        return;
    }
  }

  private finishAssistant(item: Extract<ChatItem, { kind: "assistant" }>, message: Json, entryId: string | null, ch: Change): void {
    const blocks: Block[] = [];
    for (const raw of Array.isArray(message.content) ? message.content : []) {
      const b = obj(raw);
      if (b.type === "text") blocks.push({ type: "text", text: str(b.text) });
      else if (b.type === "thinking") blocks.push({ type: "thinking", text: str(b.thinking) });
      else if (b.type === "toolCall") {
        blocks.push({ type: "toolCall", id: str(b.id), name: str(b.name) });
        this.card(str(b.id), str(b.name), obj(b.arguments), ch);
      }
    }
    item.blocks = blocks;
    item.entryId = entryId ?? item.entryId;
    item.streaming = false;
    item.stopReason = str(message.stopReason) || null;
    item.errorMessage = str(message.errorMessage) || null;
    const cost = obj(obj(message.usage).cost).total;
    if (typeof cost === "number") {
      this.cost += cost;
      ch.header = true;
    }
    if (!ch.items.includes(item.key)) ch.items.push(item.key);
  }

  private card(id: string, name: string, args: Json, ch: Change): ToolCard {
    let card = this.tools.get(id);
    if (!card) {
      card = { id, name, args, status: "pending", output: "", diff: null, resultEntryId: null };
      this.tools.set(id, card);
    } else {
      if (name) card.name = name;
      if (Object.keys(args).length) card.args = args;
    }
    ch.tools.push(id);
    return card;
  }

  private toolResult(message: Json, entryId: string | null, ch: Change): void {
    const card = this.card(str(message.toolCallId), str(message.toolName), {}, ch);
    card.output = contentText(message.content);
    card.status = message.isError ? "error" : "done";
    card.diff = str(obj(message.details).diff) || card.diff;
    card.resultEntryId = entryId;
  }

  private lastAssistant(): Extract<ChatItem, { kind: "assistant" }> | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === "assistant") return it;
      if (it.kind === "user") return undefined;
    }
    return undefined;
  }

  /** Fold one `pi/event` into the state. */
  apply(event: PiEvent | Json): Change {
    const ch = this.change();
    const e = event as Json;
    switch (e.type) {
      case "agent_start":
        this.streaming = true;
        this.runFiles = [];
        ch.header = true;
        break;
      case "agent_end": {
        this.streaming = false;
        ch.header = true;
        for (const it of this.items) {
          if (it.kind === "assistant" && it.streaming) {
            it.streaming = false;
            ch.items.push(it.key);
          }
        }
        if (this.runFiles.length) this.add({ kind: "changes", entryId: null, files: [...this.runFiles] }, ch);
        this.runFiles = [];
        break;
      }
      case "turn_start":
      case "turn_end":
        break;
      case "message_start": {
        const m = obj(e.message);
        if (m.role === "assistant") {
          this.add({ kind: "assistant", entryId: null, blocks: [], streaming: true, stopReason: null, errorMessage: null }, ch);
        } else if (m.role === "user") {
          this.add({ kind: "user", entryId: null, text: contentText(m.content) }, ch);
        }
        break;
      }
      case "message_update":
        this.delta(obj(e.assistantMessageEvent), ch);
        break;
      case "message_end": {
        const m = obj(e.message);
        const entryId = str(e.entryId) || null;
        if (m.role === "assistant") {
          const item = this.lastAssistant();
          if (item && item.entryId === null) this.finishAssistant(item, m, entryId, ch);
          else this.addMessage(m, entryId, ch);
        } else if (m.role === "user") {
          const last = [...this.items].reverse().find((it) => it.kind === "user");
          if (last && last.entryId === null) {
            last.entryId = entryId;
            ch.items.push(last.key);
          } else this.addMessage(m, entryId, ch);
        } else {
          this.addMessage(m, entryId, ch);
        }
        break;
      }
      case "tool_execution_start": {
        const card = this.card(str(e.toolCallId), str(e.toolName), obj(e.args), ch);
        card.status = "running";
        break;
      }
      case "tool_execution_update": {
        const card = this.card(str(e.toolCallId), str(e.toolName), obj(e.args), ch);
        card.output = contentText(obj(e.partialResult).content);
        break;
      }
      case "tool_execution_end": {
        const card = this.card(str(e.toolCallId), str(e.toolName), {}, ch);
        const result = obj(e.result);
        card.output = contentText(result.content);
        card.diff = str(obj(result.details).diff) || null;
        card.status = e.isError ? "error" : "done";
        // a file the turn changed (Open diff); a refused or failed edit changed nothing
        const path = str(card.args.path);
        if (!e.isError && EDIT_TOOLS.has(card.name) && path && !this.runFiles.includes(path)) this.runFiles.push(path);
        this.permissions = this.permissions.filter((p) => p.toolCallId !== card.id);
        break;
      }
      case "compaction_start":
      case "auto_compaction_start":
        this.compacting = true;
        ch.header = true;
        this.add({ kind: "compaction", entryId: null, pending: true, summary: "",
          tokensBefore: null, error: null }, ch);
        break;
      case "compaction_end":
      case "auto_compaction_end": {
        this.compacting = false;
        ch.header = true;
        const item = [...this.items].reverse().find((it) => it.kind === "compaction" && it.pending) as
          | Extract<ChatItem, { kind: "compaction" }>
          | undefined;
        const result = obj(e.result);
        const error = str(e.errorMessage) || (e.aborted ? "Compaction cancelled" : "");
        if (item) {
          item.pending = false;
          item.summary = str(result.summary);
          item.tokensBefore = typeof result.tokensBefore === "number" ? result.tokensBefore : null;
          item.error = error || null;
          ch.items.push(item.key);
        }
        break;
      }
      case "auto_retry_start":
        this.add({ kind: "notice", entryId: null, level: "warning",
          text: `Provider error: ${str(e.errorMessage)} Retrying (attempt ${e.attempt} of ${e.maxAttempts}) in ${Math.round(Number(e.delayMs) / 100) / 10} s.` }, ch);
        break;
      case "auto_retry_end":
        if (!e.success) this.add({ kind: "notice", entryId: null, level: "error",
          text: `Retrying failed: ${str(e.finalError) || "gave up"}. Check the provider settings (pi.apiBase, API keys) and send again.` }, ch);
        break;
      case "foreign_entries": {
        const ids = Array.isArray(e.entryIds) ? e.entryIds.filter((x): x is string => typeof x === "string") : [];
        if (!ids.length) {
          ch.ignored = "foreign_entries without entry ids";
          break;
        }
        this.add({ kind: "foreign", entryId: null, entryIds: ids, tipId: ids[ids.length - 1] }, ch);
        break;
      }
      case "entry_appended": {
        const entry = obj(e.entry);
        if (entry.type === "compaction") {
          const item = [...this.items].reverse().find((it) => it.kind === "compaction" && it.entryId === null);
          if (item) {
            item.entryId = str(entry.id);
            ch.items.push(item.key);
          }
        }
        break;
      }
      case "state_changed": {
        const s = obj(e.state) as unknown as SessionState;
        this.state = s;
        this.streaming = Boolean(s.isStreaming);
        this.compacting = Boolean(s.isCompacting);
        ch.header = true;
        break;
      }
      case "error":
        this.add({ kind: "notice", entryId: null, level: "error",
          text: `${str(e.message)} (the daemon goes on; send the message again, or see the pi output channel)` }, ch);
        break;
      default:
        ch.ignored = `unknown event type ${JSON.stringify(e.type)}`;
    }
    return ch;
  }

  private delta(d: Json, ch: Change): void {
    let item = this.lastAssistant();
    if ((!item || !item.streaming) && this.streaming) {
      // the panel was (re)loaded in the middle of a message: show the rest of it
      item = this.add<Extract<ChatItem, { kind: "assistant" }>>({ kind: "assistant", entryId: null, blocks: [], streaming: true, stopReason: null, errorMessage: null }, ch);
    }
    if (!item || !item.streaming) {
      ch.ignored = `message_update without a streaming assistant message (${str(d.type)})`;
      return;
    }
    const i = typeof d.contentIndex === "number" ? d.contentIndex : item.blocks.length;
    const kind = str(d.type);
    const ensure = (type: "text" | "thinking"): Block => {
      const b = item.blocks[i];
      if (b && b.type === type) return b;
      const fresh: Block = { type, text: "" };
      item.blocks[i] = fresh;
      return fresh;
    };
    if (kind === "text_start") ensure("text");
    else if (kind === "thinking_start") ensure("thinking");
    else if (kind === "text_delta" || kind === "thinking_delta") {
      const b = ensure(kind === "text_delta" ? "text" : "thinking") as { text: string };
      b.text += str(d.delta);
    } else if (kind === "text_end" || kind === "thinking_end") {
      const b = ensure(kind === "text_end" ? "text" : "thinking") as { text: string };
      if (typeof d.content === "string") b.text = d.content;
    } else if (kind === "toolcall_end") {
      const call = obj(d.toolCall);
      item.blocks[i] = { type: "toolCall", id: str(call.id), name: str(call.name) };
      this.card(str(call.id), str(call.name), obj(call.arguments), ch);
    } else if (kind === "toolcall_start" || kind === "toolcall_delta") {
      return; // the call is shown once complete (toolcall_end)
    } else {
      ch.ignored = `unknown message_update ${JSON.stringify(kind)}`;
      return;
    }
    for (let j = 0; j < item.blocks.length; j++) if (!item.blocks[j]) item.blocks[j] = { type: "text", text: "" };
    ch.items.push(item.key);
  }

  /** A note from the extension (a failed request, a daemon that stopped). */
  notice(level: "info" | "warning" | "error", text: string): Change {
    const ch = this.change();
    this.add({ kind: "notice", entryId: null, level, text }, ch);
    return ch;
  }

  /** A `pi/requestPermission` the user has to answer in the panel. */
  askPermission(p: PendingPermission): Change {
    if (!this.permissions.some((x) => x.requestId === p.requestId)) this.permissions.push(p);
    const ch = this.change();
    ch.tools.push(p.toolCallId);
    ch.header = true;
    return ch;
  }

  /** The request was answered (here or in a notification) or withdrawn. */
  closePermission(requestId: string, note?: string): Change {
    const ch = this.change();
    const p = this.permissions.find((x) => x.requestId === requestId);
    this.permissions = this.permissions.filter((x) => x.requestId !== requestId);
    if (p) ch.tools.push(p.toolCallId);
    if (note) this.add({ kind: "notice", entryId: null, level: "warning", text: note }, ch);
    ch.header = true;
    return ch;
  }

  /** Header figures: tokens / window, percent, cost. */
  usage(): { tokens: number | null; window: number | null; percent: number | null; cost: number } {
    const u = this.state?.contextUsage;
    return { tokens: u?.tokens ?? null, window: u?.contextWindow ?? null, percent: u?.percent ?? null, cost: this.cost };
  }
}

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatModel, type ChatItem } from "../../src/chat/model";
import { scenario } from "./fixtures";

function replay(name: Parameters<typeof scenario>[0]): { model: ChatModel; ignored: string[] } {
  const s = scenario(name);
  const model = new ChatModel();
  model.load(s.messagesBefore.entries, null);
  const ignored: string[] = [];
  for (const n of s.events) {
    const ch = model.apply(n.event);
    if (ch.ignored) ignored.push(ch.ignored);
  }
  return { model, ignored };
}

/** What a reload shows: the live stream must end where pi/session/messages starts. */
function shape(items: ChatItem[]): unknown[] {
  return items
    .filter((i) => i.kind !== "changes" && i.kind !== "notice")
    .map((i) => {
      if (i.kind === "assistant") return { kind: i.kind, entryId: i.entryId, blocks: i.blocks, stopReason: i.stopReason };
      if (i.kind === "user") return { kind: i.kind, entryId: i.entryId, text: i.text };
      if (i.kind === "compaction") return { kind: i.kind, entryId: i.entryId, summary: i.summary, tokensBefore: i.tokensBefore };
      return { kind: i.kind, entryId: i.entryId };
    });
}

test("a streamed turn ends as the stored messages show it", () => {
  const { model, ignored } = replay("turn");
  assert.deepEqual(ignored, []);
  const stored = new ChatModel();
  stored.load(scenario("turn").messagesAfter.entries, null);
  assert.deepEqual(shape(model.items), shape(stored.items));
  assert.equal(model.streaming, false);
  // every item the daemon stored has its entry id (data-entry-id)
  for (const it of model.items.filter((i) => i.kind === "user" || i.kind === "assistant")) assert.ok(it.entryId);
});

test("tool cards: read, edit with its diff, bash with streamed output; files changed listed", () => {
  const { model } = replay("turn");
  const cards = [...model.tools.values()];
  assert.deepEqual(cards.map((c) => [c.name, c.status]), [["read", "done"], ["edit", "done"], ["bash", "done"]]);
  assert.match(cards[0].output, /return abs\(a\) \+ b/);
  assert.ok(cards[1].diff && /-.*abs\(a\)/.test(cards[1].diff), `edit diff: ${cards[1].diff}`);
  assert.match(cards[2].output, /tests pass/);
  const changes = model.items.filter((i) => i.kind === "changes");
  assert.deepEqual(changes.map((c) => (c as { files: string[] }).files), [["calc.py"]]);
});

test("an edit the editor refused as stale (applied: false) is an error card saying so", () => {
  const { model, ignored } = replay("stale");
  assert.deepEqual(ignored, []);
  assert.deepEqual(scenario("stale").serverRequests.map((r) => r.method), ["workspace/applyEdit"]);
  const card = [...model.tools.values()].find((c) => c.name === "edit");
  assert.ok(card, "edit card");
  assert.equal(card.status, "error");
  assert.match(card.output, /The editor refused the change to .*calc\.py .*Read the file again/);
  assert.equal(card.diff, null, "no diff: nothing was changed");
  assert.equal(model.items.filter((i) => i.kind === "changes").length, 0, "no file listed as changed");
});

test("streaming: text deltas accumulate while the message streams", () => {
  const s = scenario("turn");
  const model = new ChatModel();
  model.load(s.messagesBefore.entries, null);
  const seen: string[] = [];
  for (const n of s.events) {
    model.apply(n.event);
    const last = model.items[model.items.length - 1];
    if (n.event.type === "message_update" && last.kind === "assistant") {
      const text = last.blocks.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("");
      if (text) seen.push(text);
      assert.equal(last.streaming, true);
    }
  }
  assert.ok(seen.some((t) => t.length > 0 && t.length < "Reading **calc.py**.".length), "partial text was visible");
  assert.ok(seen.includes("Reading **calc.py**."));
});

test("permission prompts are pending until answered, and withdrawn when the tool ends", () => {
  const s = scenario("turn");
  const req = s.serverRequests.find((r) => r.method === "pi/requestPermission");
  assert.ok(req);
  const model = new ChatModel();
  model.askPermission({ requestId: "1", kind: String(req.params.kind), toolName: "bash", toolCallId: String(req.params.toolCallId), detail: String(req.params.detail) });
  assert.equal(model.permissions.length, 1);
  model.askPermission({ requestId: "1", kind: "bash", toolName: "bash", toolCallId: String(req.params.toolCallId), detail: "again" });
  assert.equal(model.permissions.length, 1, "the same request shown again is not doubled");
  for (const n of s.events) model.apply(n.event);
  assert.equal(model.permissions.length, 0, "tool_execution_end of that call closes it");
  model.askPermission({ requestId: "2", kind: "bash", toolName: "bash", toolCallId: "x", detail: "ls" });
  const ch = model.closePermission("2", "No answer within 120 s: denied.");
  assert.equal(model.permissions.length, 0);
  assert.equal(model.item(ch.items[0])?.kind, "notice");
});

test("abort: the partial reply is kept, marked stopped", () => {
  const { model, ignored } = replay("abort");
  assert.deepEqual(ignored, []);
  const last = [...model.items].reverse().find((i) => i.kind === "assistant");
  assert.ok(last && last.kind === "assistant");
  assert.equal(last.stopReason, "aborted");
  assert.equal(last.streaming, false);
  assert.match((last.blocks[0] as { text: string }).text, /^A long/);
  assert.equal(model.streaming, false);
});

test("compaction: an item with the summary and tokens before, and its entry id", () => {
  const { model, ignored } = replay("compact");
  assert.deepEqual(ignored, []);
  const c = model.items.find((i) => i.kind === "compaction");
  assert.ok(c && c.kind === "compaction");
  assert.equal(c.pending, false);
  assert.match(c.summary, /Fix add\(\)/);
  assert.ok((c.tokensBefore ?? 0) > 0);
  assert.ok(c.entryId);
  // reloading shows a compaction item too (pi/session/messages starts with it)
  const stored = new ChatModel();
  stored.load(scenario("compact").messagesAfter.entries, null);
  assert.equal(stored.items[0].kind, "compaction");
  assert.equal(stored.items[0].entryId, c.entryId);
});

test("branch with a summary: the reloaded messages end with the branch summary item", () => {
  const s = scenario("branch");
  const model = new ChatModel();
  model.load(s.messagesAfter.entries, s.events.find((e) => e.event.type === "state_changed")?.event.state as never);
  const kinds = model.items.map((i) => i.kind);
  assert.equal(kinds[kinds.length - 1], "branchSummary");
  const b = model.items[kinds.length - 1];
  assert.ok(b.kind === "branchSummary" && /Fix add/.test(b.summary));
});

test("foreign_entries (another program appended during the turn, captured): a note naming them and their branch's tip", () => {
  const { model, ignored } = replay("foreign");
  assert.deepEqual(ignored, []);
  const told = scenario("foreign").events.map((n) => n.event).find((e) => e.type === "foreign_entries") as { entryIds: string[]; leafId: string };
  assert.equal(told.entryIds.length, 2);
  const notes = model.items.filter((i) => i.kind === "foreign");
  assert.equal(notes.length, 1);
  const note = notes[0];
  assert.ok(note.kind === "foreign");
  assert.deepEqual(note.entryIds, told.entryIds);
  assert.equal(note.tipId, told.entryIds[1]);
  assert.equal(note.entryId, null); // a note, not a session entry: no message actions
  // the chat stays on this daemon's chain: the other program's messages are not in it
  const texts = model.items.filter((i) => i.kind === "user").map((i) => (i as { text: string }).text);
  assert.ok(!texts.includes("A question from the CLI"), texts.join(" | "));
  const stored = new ChatModel();
  stored.load(scenario("foreign").messagesAfter.entries, null);
  assert.deepEqual(shape(model.items.filter((i) => i.kind !== "foreign")), shape(stored.items));
  // and the other program's entries are where the note points: a sibling branch in the tree
  const tree = scenario("foreign").treeAfter;
  const tip = tree.nodes.find((n) => n.id === note.tipId);
  assert.ok(tip && !tip.onActivePath && tree.leafId === told.leafId);
  // malformed: no ids → ignored with a reason, nothing added
  const before = model.items.length;
  assert.match(model.apply({ type: "foreign_entries", entryIds: [], leafId: null }).ignored ?? "", /without entry ids/);
  assert.equal(model.items.length, before);
});

test("unknown or malformed events are reported as ignored, the model goes on", () => {
  const model = new ChatModel();
  assert.match(model.apply({ type: "something_new" }).ignored ?? "", /unknown event/);
  assert.match(model.apply({ type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "x" } } as never).ignored ?? "", /without a streaming/);
  model.apply({ type: "message_start", message: { role: "assistant", content: [] } } as never); // a partial message: malformed on purpose
  assert.match(model.apply({ type: "message_update", assistantMessageEvent: { type: "bogus" } } as never).ignored ?? "", /unknown message_update/);
  model.apply({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "ok" } });
  assert.deepEqual((model.items[0] as { blocks: unknown[] }).blocks, [{ type: "text", text: "ok" }]);
});

test("cost is summed from the assistant messages' usage", () => {
  const model = new ChatModel();
  model.load([{ type: "message", id: "a", message: { role: "assistant", content: [], usage: { cost: { total: 0.25 } } } },
    { type: "message", id: "b", message: { role: "assistant", content: [], usage: { cost: { total: 0.5 } } } }], null);
  assert.equal(model.usage().cost, 0.75);
});

test("a panel loaded in the middle of a streamed message shows the rest of it", () => {
  const s = scenario("turn");
  const state = s.events.find((e) => e.event.type === "state_changed")?.event.state as never;
  const cut = s.events.findIndex((e) => e.event.type === "message_update" && (e.event as unknown as { assistantMessageEvent: { type: string } }).assistantMessageEvent.type === "text_delta");
  const model = new ChatModel();
  model.load([], { ...(state as object), isStreaming: true } as never);
  const ignored: string[] = [];
  for (const n of s.events.slice(cut + 1)) {
    const ch = model.apply(n.event);
    if (ch.ignored) ignored.push(ch.ignored);
  }
  assert.deepEqual(ignored, []);
  const last = model.items.filter((i) => i.kind === "assistant").at(-1);
  assert.ok(last && last.kind === "assistant" && /no longer calls/.test(JSON.stringify(last.blocks)));
});

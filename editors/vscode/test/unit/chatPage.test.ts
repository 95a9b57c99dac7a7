import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chatPage, type Reset } from "../../src/chat/page";
import { ChatModel } from "../../src/chat/model";
import { FIRST_SCREEN, itemHtml } from "../../src/chat/render";
import { root, scenario } from "./fixtures";

const template = readFileSync(join(root, "media", "chat.html"), "utf8");
const uris = { cspSource: "vscode-resource:", scriptUri: "res://chat.js", styleUri: "res://chat.css" };

const turnState = scenario("turn").events.find((e) => e.event.type === "state_changed")!.event.state as Reset["state"];

function messages(n: number): Reset["entries"] {
  return Array.from({ length: n }, (_, i) => ({
    type: "message", id: `m${i}`, parentId: i ? `m${i - 1}` : null,
    message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: i === n - 1 ? "bye </script><script>alert(1)</script> <!-- x" : `message ${i}` }] },
  }));
}

test("a page without a session: addresses filled, no messages, no data block", () => {
  const html = chatPage(template, uris, null);
  assert.ok(!/\{\{\w+\}\}/.test(html), "every placeholder filled");
  assert.match(html, /script-src vscode-resource:;/);
  assert.match(html, /<script defer src="res:\/\/chat\.js">/);
  assert.match(html, /<main id="log" aria-live="polite"><\/main>/);
  assert.ok(!html.includes('id="initial"'));
  assert.match(html, /<button id="name"[^>]*>New session<\/button>/);
});

test("a page for a session: its newest screen rendered as the webview renders it, and the reset as inert JSON", () => {
  const state = { ...turnState, sessionName: "a <b> & c" };
  const first: Reset = { type: "reset", state, entries: messages(100), hasEarlier: true };
  const html = chatPage(template, uris, first);
  const model = new ChatModel();
  model.load(first.entries, state);
  const expected = model.items.slice(-FIRST_SCREEN).map((it) => itemHtml(it, model.tools)).join("");
  assert.ok(html.includes(`<main id="log" aria-live="polite">${expected}</main>`), "the last FIRST_SCREEN items, same renderer");
  assert.equal(html.match(/class="item /g)?.length, FIRST_SCREEN);
  assert.ok(html.includes('data-entry-id="m70"') && !html.includes('data-entry-id="m69"'));
  assert.match(html, /<button id="name"[^>]*>a &lt;b&gt; &amp; c<\/button>/);
  // the message text cannot end the data block or open markup: one </script> per real script
  assert.equal(html.match(/<\/script>/g)?.length, 2);
  assert.ok(html.includes("bye &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped in the rendered item");
  const data = html.match(/<script type="application\/json" id="initial">(.*?)<\/script>/s);
  assert.ok(data);
  assert.ok(!data[1].includes("<"), "no < inside the data block");
  assert.deepEqual(JSON.parse(data[1]), first);
});

test("a placeholder-like text in a message stays as it is", () => {
  const entries = [{ type: "message", id: "u1", parentId: null, message: { role: "user", content: [{ type: "text", text: "what is {{scriptUri}} and $& ?" }] } }];
  const html = chatPage(template, uris, { type: "reset", state: turnState, entries, hasEarlier: false });
  assert.ok(html.includes("what is {{scriptUri}} and $&amp; ?"));
});

import assert from "node:assert/strict";
import { test } from "node:test";
import type { TreeNode } from "../../src/protocol";
import { CHUNK, TreeModel, type Row } from "../../src/tree/model";
import { scenario } from "./fixtures";

const ids = (rows: Row[]): string[] => rows.map((r) => r.id);

test("entry_appended events bring the tree to what pi/session/tree says afterwards", () => {
  for (const name of ["turn", "abort", "compact", "branch", "label", "foreign"] as const) {
    const s = scenario(name);
    const model = new TreeModel();
    model.load(s.treeBefore);
    for (const n of s.events) {
      const e = n.event as { type: string; entry?: TreeNode; state?: { leafId: string | null } };
      if (e.type === "entry_appended" && e.entry) model.append(e.entry);
      if (e.type === "state_changed" && e.state) model.setLeaf(e.state.leafId);
    }
    const fresh = new TreeModel();
    fresh.load(s.treeAfter);
    assert.equal(model.leafId, fresh.leafId, name);
    assert.deepEqual(model.roots, fresh.roots, name);
    for (const [id, node] of fresh.nodes) {
      const mine = model.nodes.get(id);
      assert.ok(mine, `${name}: ${id} missing`);
      assert.deepEqual([mine.parentId, [...mine.children].sort(), mine.onActivePath, mine.label], [node.parentId, [...node.children].sort(), node.onActivePath, node.label], `${name}: ${id}`);
    }
    assert.equal(model.nodes.size, fresh.nodes.size, name);
  }
});

function node(id: string, parentId: string | null, extra: Partial<TreeNode> = {}): TreeNode {
  return { id, parentId, type: "message", role: "user", preview: id, label: null, timestamp: "", children: [], onActivePath: false, targetId: null, targetLabel: null, ...extra };
}

test("display: linear runs flat, branches nested, the leaf's path active", () => {
  const m = new TreeModel();
  m.load({ leafId: null, roots: [], nodes: [] });
  for (const [id, parent] of [["a", null], ["b", "a"], ["c", "b"], ["d", "c"], ["x", "b"], ["y", "x"]] as const) m.append(node(id, parent));
  m.setLeaf("y");
  // a → b (branches: c, x) ; top level is the run a, b
  assert.deepEqual(ids(m.children()), ["a", "b"]);
  assert.deepEqual(ids(m.children({ kind: "node", id: "b" })), ["c", "x"]);
  assert.deepEqual(ids(m.children({ kind: "node", id: "c" })), ["d"]);
  assert.deepEqual(ids(m.children({ kind: "node", id: "x" })), ["y"]);
  assert.deepEqual(m.path("y"), ["a", "b", "x", "y"]);
  assert.deepEqual([...m.nodes.values()].filter((n) => n.onActivePath).map((n) => n.id), ["a", "b", "x", "y"]);
  m.setLeaf("d");
  assert.deepEqual([...m.nodes.values()].filter((n) => n.onActivePath).map((n) => n.id), ["a", "b", "c", "d"]);
  assert.deepEqual(m.rowPath("y").map((r) => r.id), ["b", "x", "y"]);
});

test("labels from label entries (set and cleared) without refetching", () => {
  const m = new TreeModel();
  m.load({ leafId: "a", roots: ["a"], nodes: [node("a", null, { onActivePath: true })] });
  // the label comes from targetId / targetLabel, whatever the preview says
  m.append(node("l1", "a", { type: "label", role: null, preview: "label b: other", targetId: "a", targetLabel: "the question" }));
  assert.equal(m.nodes.get("a")?.label, "the question");
  m.append(node("l2", "l1", { type: "label", role: null, preview: "label a: x", targetId: "a", targetLabel: null }));
  assert.equal(m.nodes.get("a")?.label, null);
  // a context_edit also names a target; it does not touch labels
  m.append(node("l3", "a", { type: "label", role: null, targetId: "a", targetLabel: "again" }));
  m.append(node("e1", "l3", { type: "context_edit", role: null, targetId: "a" }));
  assert.equal(m.nodes.get("a")?.label, "again");
});

test("a long run is chunked; only the chunk holding the leaf is expanded", () => {
  const m = new TreeModel();
  const nodes: TreeNode[] = [];
  for (let i = 0; i < 1000; i++) nodes.push(node(`n${i}`, i ? `n${i - 1}` : null, { children: i < 999 ? [`n${i + 1}`] : [] }));
  m.load({ leafId: "n999", roots: ["n0"], nodes });
  const top = m.children();
  assert.equal(top.length, 1000 / CHUNK);
  assert.equal(top[0].kind, "chunk");
  assert.deepEqual(top.map((r) => m.containsLeaf(r)), top.map((_, i) => i === top.length - 1));
  assert.equal(m.children(top[3]).length, CHUNK);
});

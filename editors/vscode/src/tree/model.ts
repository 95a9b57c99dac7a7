// The session tree as the tree view shows it: pi/session/tree once, then kept current from
// entry_appended and state_changed events (no refetch). Pure, for unit tests.
//
// Display rule (as pi's /tree): a linear run of entries is shown flat; a node with several
// children nests them, each child heading its branch. Runs longer than CHUNK_AT are split into
// collapsible chunks of CHUNK entries so a 22k-entry session opens at once.
import type { TreeNode, TreeResult } from "../protocol";

export const CHUNK_AT = 200;
export const CHUNK = 100;

export type Row = { kind: "node"; id: string } | { kind: "chunk"; id: string; ids: string[] };

export class TreeModel {
  nodes = new Map<string, TreeNode>();
  roots: string[] = [];
  leafId: string | null = null;

  load(tree: TreeResult): void {
    this.nodes = new Map(tree.nodes.map((n) => [n.id, { ...n, children: [...n.children] }]));
    this.roots = [...tree.roots];
    this.leafId = null;
    this.setLeaf(tree.leafId);
  }

  /** An `entry_appended` event's entry; returns the parent id (the part of the view to refresh). */
  append(entry: TreeNode): string | null {
    if (this.nodes.has(entry.id)) return entry.parentId;
    const node = { ...entry, children: [...entry.children], onActivePath: false };
    this.nodes.set(node.id, node);
    const parent = node.parentId ? this.nodes.get(node.parentId) : undefined;
    if (parent) {
      if (!parent.children.includes(node.id)) parent.children.push(node.id);
    } else this.roots.push(node.id);
    // A label entry sets (or, with no label, clears) the bookmark on its target.
    if (entry.type === "label" && entry.targetId) this.setLabel(entry.targetId, entry.targetLabel);
    if (entry.onActivePath) this.setLeaf(node.id);
    return parent ? parent.id : null;
  }

  /** Set or clear a node's bookmark; false when the node is unknown. */
  setLabel(id: string, label: string | null): boolean {
    const n = this.nodes.get(id);
    if (!n) return false;
    n.label = label;
    return true;
  }

  /** Mark the path root → leaf (a `state_changed` leafId, or after a branch). */
  setLeaf(leafId: string | null): boolean {
    if (leafId === this.leafId && leafId !== null) return false;
    for (const id of this.path(this.leafId)) {
      const n = this.nodes.get(id);
      if (n) n.onActivePath = false;
    }
    this.leafId = leafId;
    for (const id of this.path(leafId)) {
      const n = this.nodes.get(id);
      if (n) n.onActivePath = true;
    }
    return true;
  }

  /** Ids from the root to `id`, root first. */
  path(id: string | null): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    let cur = id ? this.nodes.get(id) : undefined;
    while (cur && !seen.has(cur.id)) {
      seen.add(cur.id);
      out.push(cur.id);
      cur = cur.parentId ? this.nodes.get(cur.parentId) : undefined;
    }
    return out.reverse();
  }

  private isBranchHead(n: TreeNode): boolean {
    const parent = n.parentId ? this.nodes.get(n.parentId) : undefined;
    return parent !== undefined && parent.children.length > 1;
  }

  /** `start` and its single-child successors, up to a node with 0 or several children. */
  run(start: string): string[] {
    const out: string[] = [];
    let cur = this.nodes.get(start);
    while (cur) {
      out.push(cur.id);
      if (cur.children.length !== 1) break;
      cur = this.nodes.get(cur.children[0]);
    }
    return out;
  }

  private rowsOf(ids: string[]): Row[] {
    if (ids.length <= CHUNK_AT) return ids.map((id) => ({ kind: "node", id }));
    const rows: Row[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const slice = ids.slice(i, i + CHUNK);
      rows.push({ kind: "chunk", id: `chunk:${slice[0]}`, ids: slice });
    }
    return rows;
  }

  /** The rows under a row (undefined: the top level). */
  children(row?: Row): Row[] {
    if (!row) return this.rowsOf(this.roots.flatMap((r) => this.run(r)));
    if (row.kind === "chunk") return row.ids.map((id) => ({ kind: "node", id }));
    const n = this.nodes.get(row.id);
    if (!n) return [];
    if (n.children.length > 1) return n.children.map((id) => ({ kind: "node", id }));
    if (n.children.length === 1 && this.isBranchHead(n)) return this.rowsOf(this.run(n.children[0]));
    return [];
  }

  hasChildren(row: Row): boolean {
    if (row.kind === "chunk") return true;
    const n = this.nodes.get(row.id);
    return !!n && (n.children.length > 1 || (n.children.length === 1 && this.isBranchHead(n)));
  }

  /** Whether a row contains the leaf (its branch is expanded by default). */
  containsLeaf(row: Row): boolean {
    if (!this.leafId) return false;
    if (row.kind === "chunk") return row.ids.includes(this.leafId);
    const n = this.nodes.get(row.id);
    return !!n && n.onActivePath && n.id !== this.leafId;
  }

  /** The row that shows `id` directly (for reveal): its parent row chain, top first. */
  rowPath(id: string): Row[] {
    const chain: Row[] = [];
    const walk = (rows: Row[]): boolean => {
      for (const r of rows) {
        if (r.kind === "node" && r.id === id) {
          chain.push(r);
          return true;
        }
        const inside = r.kind === "chunk" ? r.ids.includes(id) : this.path(id).includes(r.id) && this.hasChildren(r);
        if (inside) {
          chain.push(r);
          if (walk(this.children(r))) return true;
          chain.pop();
        }
      }
      return false;
    };
    walk(this.children());
    return chain;
  }
}

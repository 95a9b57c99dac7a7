"""The session tree as pi's ``getTree`` shapes it, and pi's ``getBranch`` path (spec §2). Pure.

Roots are entries whose parent is null, themselves, or missing (orphans), in file order; every
node's children are sorted by entry timestamp (stable, so ties keep file order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pi_lsp.session.ids import parse_iso_ms
from pi_lsp.session.records import Record


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One entry in the tree, with its children in pi's order."""

    record: Record
    children: tuple[str, ...]
    label: str | None


@dataclass(frozen=True, slots=True)
class SessionTree:
    """Roots plus every reachable node in depth-first pre-order."""

    roots: tuple[str, ...]
    nodes: tuple[TreeNode, ...]

    def to_json(self, *, timestamps: bool = True) -> dict[str, object]:
        """The corpus ``tree`` field shape."""
        nodes = []
        for node in self.nodes:
            item: dict[str, object] = {"id": node.record.id, "parentId": node.record.parent_id}
            item["type"] = node.record.type
            if timestamps:
                item["timestamp"] = node.record.timestamp
            item["label"] = node.label
            item["children"] = list(node.children)
            nodes.append(item)
        return {"roots": list(self.roots), "nodes": nodes}


def path_to_root(by_id: Mapping[str, Record], leaf_id: str | None) -> list[Record]:
    """Entries from the root to ``leaf_id`` (pi's ``getBranch``); stops at a missing parent.

    A parent cycle (only possible in a damaged file) ends the walk instead of looping forever.
    """
    path: list[Record] = []
    append = path.append
    get = by_id.get
    current = get(leaf_id) if leaf_id is not None else None
    limit = len(by_id)
    while current is not None:
        append(current)
        if len(path) > limit:
            return _path_without_cycle(path)
        parent = current.parent_id
        current = get(parent) if parent is not None else None
    path.reverse()
    return path


def _path_without_cycle(path: list[Record]) -> list[Record]:
    seen: set[str] = set()
    kept = []
    for record in path:
        if record.id in seen:
            break
        seen.add(record.id)
        kept.append(record)
    kept.reverse()
    return kept


def _sort_key(record: Record) -> tuple[bool, int]:
    ms = parse_iso_ms(record.timestamp)
    return (ms is None, ms or 0)  # unparsable timestamps sort last


def children_map(records: Sequence[Record], by_id: Mapping[str, Record]) -> dict[str, list[Record]]:
    """Direct children of every entry, in index order (pi's ``getChildren`` order)."""
    children: dict[str, list[Record]] = {}
    for record in records:
        if by_id.get(record.id) is not record:
            continue  # an earlier line with a duplicate id: the index holds the later one
        parent = record.parent_id
        if parent is not None and parent != record.id and parent in by_id:
            children.setdefault(parent, []).append(record)
    return children


def build_tree(
    records: Sequence[Record], by_id: Mapping[str, Record], labels: Mapping[str, str]
) -> SessionTree:
    """Pi's ``getTree()`` flattened depth-first, iteratively (paths can be 20,000 deep)."""
    children = children_map(records, by_id)
    roots = [
        record
        for record in records
        if by_id.get(record.id) is record
        and (
            record.parent_id is None
            or record.parent_id == record.id
            or record.parent_id not in by_id
        )
    ]
    ordered: dict[str, list[Record]] = {}
    for parent, kids in children.items():
        ordered[parent] = _by_timestamp(kids) if len(kids) > 1 else kids
    nodes: list[TreeNode] = []
    seen: set[str] = set()
    stack = list(reversed(roots))
    while stack:
        record = stack.pop()
        if record.id in seen:
            continue
        seen.add(record.id)
        kids = ordered.get(record.id, [])
        nodes.append(TreeNode(record, tuple(k.id for k in kids), labels.get(record.id)))
        stack.extend(reversed(kids))
    return SessionTree(tuple(r.id for r in roots), tuple(nodes))


def _by_timestamp(records: list[Record]) -> list[Record]:
    return sorted(records, key=_sort_key)  # stable: ties keep index order

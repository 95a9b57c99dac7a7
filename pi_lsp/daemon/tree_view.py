"""The session tree as an editor sees it, kept as pre-encoded JSON and updated incrementally.

A tree request on a 22,000-entry session must answer in milliseconds while a turn streams, so
every node's JSON is encoded once and re-encoded only when something about it changes: a new
child, a label, the node entering or leaving the active path. A request then joins cached bytes.
Nodes are listed in file order (each names its parent and children); ``roots`` are in file order.
"""

from __future__ import annotations

from typing import Any

import msgspec

from pi_lsp.session import SessionStore
from pi_lsp.session.ids import parse_iso_ms
from pi_lsp.session.records import Record
from pi_lsp.session.render import entry_preview

_encode = msgspec.json.Encoder().encode


def _order_key(record: Record) -> tuple[bool, int]:
    ms = parse_iso_ms(record.timestamp)
    return (ms is None, ms or 0)


class TreeView:
    """Cached node JSON for one store; call :meth:`render` for the whole tree."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._position: dict[str, int] = {}
        self._fragments: list[bytes] = []
        self._children: dict[str, list[Record]] = {}
        self._roots: list[str] = []
        self._previews: dict[str, str] = {}
        self._dirty: set[str] = set()
        self._path_leaf: str | None = None
        self._path: set[str] = set()
        self.add(store.records)
        store.add_listener(lambda records, _external: self.add(records))

    def add(self, records: list[Record]) -> None:
        """Take new entries into the view (listeners call this as entries are appended)."""
        by_id = self.store.get
        for record in records:
            if by_id(record.id) is not record:
                continue  # a line whose id a later duplicate replaced
            if record.id in self._position:
                self._fragments[self._position[record.id]] = b""
            self._position[record.id] = len(self._fragments)
            self._fragments.append(b"")
            self._dirty.add(record.id)
            parent = record.parent_id
            if parent is None or parent == record.id or self.store.get(parent) is None:
                self._roots.append(record.id)
            else:
                self._children.setdefault(parent, []).append(record)
                self._dirty.add(parent)
            if record.type == "label":
                target = record.value.get("targetId")
                if isinstance(target, str):
                    self._dirty.add(target)

    def node(self, entry_id: str) -> dict[str, Any]:
        """One node as the protocol describes it."""
        record = self.store.require(entry_id)
        return self._node(record, entry_id in self._current_path())

    def _node(self, record: Record, on_path: bool) -> dict[str, Any]:
        preview = self._previews.get(record.id)
        if preview is None:
            preview = self._previews[record.id] = entry_preview(record)
        kids = self._children.get(record.id, [])
        if len(kids) > 1:
            kids = sorted(kids, key=_order_key)
        return {
            "id": record.id,
            "parentId": record.parent_id,
            "type": record.type,
            "role": record.role,
            "preview": preview,
            "label": self.store.label_of(record.id),
            "timestamp": record.timestamp,
            "children": [k.id for k in kids],
            "onActivePath": on_path,
        }

    def _current_path(self) -> set[str]:
        leaf = self.store.leaf_id
        if leaf != self._path_leaf:
            record = self.store.get(leaf) if leaf is not None else None
            if leaf is not None and record is not None and record.parent_id == self._path_leaf:
                new_path = self._path | {leaf}  # one step down the same path: no walk
            else:
                new_path = {r.id for r in self.store.branch_path()}
            self._dirty |= new_path ^ self._path
            self._path, self._path_leaf = new_path, leaf
        return self._path

    def render(self) -> bytes:
        """``{"leafId", "roots", "nodes"}`` as JSON bytes."""
        path = self._current_path()
        get = self.store.get
        for entry_id in self._dirty:
            record = get(entry_id)
            position = self._position.get(entry_id)
            if record is not None and position is not None:
                self._fragments[position] = _encode(self._node(record, entry_id in path))
        self._dirty.clear()
        nodes = b",".join(f for f in self._fragments if f)
        head = _encode({"leafId": self.store.leaf_id, "roots": self._roots})
        return head[:-1] + b',"nodes":[' + nodes + b"]}"

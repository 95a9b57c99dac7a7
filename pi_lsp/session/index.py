"""SessionIndex: the in-memory tree of one session (entries by id, labels, name, settings).

It knows nothing about files or the leaf pointer; :class:`pi_lsp.session.store.SessionStore`
feeds it records as they are read or appended. Each record gets the ids of the thinking-level,
model and compaction entries in force at it (computed from its parent at indexing), so a context
can be built by walking only the entries that end up in it.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_lsp.session.context import ROOT_SETTINGS, inherit_settings
from pi_lsp.session.records import Diagnostic, DiagnosticList, PathAnchors, Record
from pi_lsp.session.tree import SessionTree, build_tree, path_to_root

CONVERSATION_ROLES = ("user", "assistant")
"""Roles whose first message creates a new session's file (pi 1.6.0's ``_hasConversation``)."""


class SessionIndex:
    """Entries in file order and by id, with pi's label and name replay."""

    def __init__(self, where: str) -> None:
        self.where = where
        """The file name used in diagnostics (``<memory>`` for in-memory sessions)."""
        self.records: list[Record] = []
        self.by_id: dict[str, Record] = {}
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self.has_conversation = False
        """True once a user or assistant message is indexed (a new file is written then)."""
        self.diagnostics: list[Diagnostic] = DiagnosticList(where)
        self.settings_reliable = True
        """False once a duplicate id could leave stale inherited settings (contexts then walk)."""

    def add_all(self, records: Iterable[Record]) -> None:
        """Index records read from a file, then report orphans and self-parented entries."""
        start = len(self.records)
        for record in records:
            self.add(record)
        self.diagnostics.extend(self.link_problems(self.records[start:]))

    def add(self, record: Record) -> None:
        """Index one record (last one wins for a duplicate id, as pi's ``byId`` map)."""
        self.records.append(record)
        entry_id = record.id
        previous = self.by_id.get(entry_id)
        self.by_id[entry_id] = record
        parent = record.parent_id
        base: PathAnchors | None = ROOT_SETTINGS
        if parent is not None and parent != entry_id:
            parent_record = self.by_id.get(parent)
            base = parent_record.settings if parent_record is not None else None
            if parent_record is not None:
                record.parent_id = parent_record.id  # share one string object per id
        record.settings = inherit_settings(record, base) if base is not None else None
        if previous is not None:
            self.settings_reliable = False
            reason = f"duplicate id {entry_id} (replaces line {previous.line} in the index)"
            self.diagnostics.append(Diagnostic(self.where, record.line, reason))
        kind = record.type
        if kind == "message":
            if record.role in CONVERSATION_ROLES:
                self.has_conversation = True
        elif kind == "label":
            self._replay_label(record)
        elif kind == "session_info":
            # pi 1.6.0: the latest entry in file order wins, and an empty name clears.
            name = record.value.get("name")
            self.name = (name.strip() or None) if isinstance(name, str) else None

    def _replay_label(self, record: Record) -> None:
        value = record.value
        target, label = value.get("targetId"), value.get("label")
        if isinstance(target, str):
            if label:
                self.labels[target] = label
            else:
                self.labels.pop(target, None)

    def link_problems(self, records: Iterable[Record]) -> list[Diagnostic]:
        """Self-parented entries and orphans (kept, and shown as roots, as pi does)."""
        found = []
        by_id = self.by_id
        for record in records:
            parent = record.parent_id
            if parent is None or (parent in by_id and parent != record.id):
                continue
            reason = (
                f"entry {record.id} is its own parent"
                if parent == record.id
                else f"orphan entry {record.id}: parent {parent} missing"
            )
            found.append(Diagnostic(self.where, record.line, reason))
        return found

    def path(self, leaf_id: str | None) -> list[Record]:
        """Root-first entries to ``leaf_id``."""
        return path_to_root(self.by_id, leaf_id)

    def tree(self) -> SessionTree:
        """pi's ``getTree()``."""
        return build_tree(self.records, self.by_id, self.labels)

    def children(self, entry_id: str) -> list[Record]:
        """Direct children in index order (pi's ``getChildren``)."""
        by_id = self.by_id
        return [
            r
            for r in self.records
            if r.parent_id == entry_id and r.id != entry_id and by_id.get(r.id) is r
        ]


def continues_chain(fresh: list[Record], ancestor: str | None) -> bool:
    """True when the last new entry continues the chain that ends at ``ancestor``."""
    ids = {r.id: r for r in fresh}
    current: Record | None = fresh[-1]
    seen: set[str] = set()
    while current is not None and current.id not in seen:
        seen.add(current.id)
        if current.parent_id == ancestor:
            return True
        current = ids.get(current.parent_id) if current.parent_id is not None else None
    return False

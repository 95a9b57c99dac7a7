"""The in-memory tree of one session: its index, pi's ``getTree`` and ``getBranch``, a text view.

:class:`SessionIndex` holds the entries in file order and by id, with pi's label and name replay.
It knows nothing about files or the leaf pointer; :class:`pi_lsp.session.store.SessionStore`
feeds it records as they are read or appended. Each record gets the ids of the thinking-level,
model and compaction entries in force at it (:func:`inherit_settings`, from its parent at
indexing), so a context can be built by walking only the entries that end up in it.

The tree as pi shapes it (spec §2): roots are entries whose parent is null, themselves, or missing
(orphans), in file order; every node's children are sorted by entry timestamp (stable, so ties
keep file order). :func:`path_to_root` is pi's ``getBranch``; :func:`render_tree` draws the tree
for a terminal. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from pi_lsp.session.entries import LabelEntry, SessionInfoEntry, entry_as
from pi_lsp.session.jsonl import Diagnostic, DiagnosticList, PathAnchors, Record
from pi_lsp.session.messages import OPEN
from pi_lsp.session.paths import parse_iso_ms
from pi_lsp.session.projection import entry_preview


@OPEN
class TreeNodeOut(TypedDict):
    """One node of ``pi-lsp sessions tree --json``."""

    id: str
    parentId: str | None
    type: str
    timestamp: NotRequired[str | None]
    label: str | None
    children: list[str]


@OPEN
class TreeOut(TypedDict):
    """Roots (file order, orphans included) and nodes in depth-first pre-order."""

    roots: list[str]
    nodes: list[TreeNodeOut]


class EntryNotFoundError(KeyError):
    """An entry id that is not in the session."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(entry_id)
        self.entry_id = entry_id

    def __str__(self) -> str:
        return f"Entry {self.entry_id} not found"


CONVERSATION_ROLES = ("user", "assistant")
"""Roles whose first message creates a new session's file (pi 1.6.0's ``_hasConversation``)."""

ROOT_SETTINGS: PathAnchors = (None, None, None)


def inherit_settings(record: Record, base: PathAnchors) -> PathAnchors:
    """The settings at ``record`` given those at its parent (computed once, at indexing)."""
    kind = record.type
    if kind == "thinking_level_change":
        return (record.id, base[1], base[2])
    if kind == "model_change" or (kind == "message" and record.role == "assistant"):
        return (base[0], record.id, base[2])
    if kind == "compaction":
        return (base[0], base[1], record.id)
    return base


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
        """Index records read from a file, then report orphans and self-parented entries.

        The same as :meth:`add` for each record, with the work for a message entry whose id is
        new (all but a few lines of every file) done inline: opening deep-tree costs 0.6x the
        per-record calls here. Every other record goes through :meth:`add`.
        """
        by_id = self.by_id
        get = by_id.get
        append = self.records.append
        add = self.add
        unlinked: list[Record] = []
        """Records that may be orphans or their own parent: all others found their parent."""
        conversation = False
        for record in records:
            entry_id = record.id
            if record.type != "message" or entry_id in by_id:
                add(record)
                unlinked.append(record)
                continue
            append(record)
            by_id[entry_id] = record
            parent = record.parent_id
            base: PathAnchors | None = ROOT_SETTINGS
            if parent == entry_id:  # its own parent: a root, reported below
                unlinked.append(record)
            elif parent is not None:
                parent_record = get(parent)
                if parent_record is None:  # an orphan unless its parent comes later
                    base = None
                    unlinked.append(record)
                else:
                    base = parent_record.settings
                    record.parent_id = parent_record.id  # share one string object per id
            role = record.role
            if base is not None and role == "assistant":
                base = inherit_settings(record, base)  # other messages change no setting
            record.settings = base
            if role in CONVERSATION_ROLES:
                conversation = True
        if conversation:
            self.has_conversation = True
        self.diagnostics.extend(self.link_problems(unlinked))

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
        elif (label := entry_as(record, LabelEntry)) is not None:
            self._replay_label(label)
        elif (info := entry_as(record, SessionInfoEntry)) is not None:
            # pi 1.6.0: the latest entry in file order wins, and an empty name clears.
            name = info.get("name")
            self.name = (name.strip() or None) if isinstance(name, str) else None

    def _replay_label(self, value: LabelEntry) -> None:
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


@dataclass(frozen=True, slots=True)
class TreeItem:
    """One entry in the tree, with its children in pi's order."""

    record: Record
    children: tuple[str, ...]
    label: str | None


@dataclass(frozen=True, slots=True)
class SessionTree:
    """Roots plus every reachable node in depth-first pre-order."""

    roots: tuple[str, ...]
    nodes: tuple[TreeItem, ...]

    def to_json(self, *, timestamps: bool = True) -> TreeOut:
        """The corpus ``tree`` field shape."""
        nodes: list[TreeNodeOut] = []
        for node in self.nodes:
            record = node.record
            if timestamps:
                item = TreeNodeOut(
                    id=record.id,
                    parentId=record.parent_id,
                    type=record.type,
                    timestamp=record.timestamp,
                    label=node.label,
                    children=list(node.children),
                )
            else:
                item = TreeNodeOut(
                    id=record.id,
                    parentId=record.parent_id,
                    type=record.type,
                    label=node.label,
                    children=list(node.children),
                )
            nodes.append(item)
        return TreeOut(roots=list(self.roots), nodes=nodes)


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
    nodes: list[TreeItem] = []
    seen: set[str] = set()
    stack = list(reversed(roots))
    while stack:
        record = stack.pop()
        if record.id in seen:
            continue
        seen.add(record.id)
        kids = ordered.get(record.id, [])
        nodes.append(TreeItem(record, tuple(k.id for k in kids), labels.get(record.id)))
        stack.extend(reversed(kids))
    return SessionTree(tuple(r.id for r in roots), tuple(nodes))


def _by_timestamp(records: list[Record]) -> list[Record]:
    return sorted(records, key=_sort_key)  # stable: ties keep index order


def _kind(record: Record) -> str:
    return record.role or record.type


def render_tree(tree: SessionTree, leaf_id: str | None) -> str:
    """The tree with branch guides; a linear run of entries stays at one indentation."""
    line_prefix: dict[str, str] = {}
    child_prefix: dict[str, str] = {}
    lines = []
    for node in tree.nodes:
        record = node.record
        own = child_prefix.get(record.id, "")
        kids = node.children
        for index, child in enumerate(kids):
            if len(kids) == 1:
                line_prefix[child], child_prefix[child] = own, own
            else:
                last = index == len(kids) - 1
                line_prefix[child] = own + ("└ " if last else "├ ")
                child_prefix[child] = own + ("  " if last else "│ ")
        marks = f" [{node.label}]" if node.label else ""
        marks += " <- leaf" if record.id == leaf_id else ""
        lead = line_prefix.get(record.id, "")
        lines.append(f"{lead}{record.id} {_kind(record)}: {entry_preview(record)}{marks}")
    return "".join(line + "\n" for line in lines)

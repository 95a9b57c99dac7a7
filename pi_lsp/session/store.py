"""SessionStore: one pi session file as an append-only tree with a leaf pointer (spec §1–2).

Every ``append_*`` hangs a new entry under the current leaf and moves the leaf to it; ``branch``
only moves the pointer. A new session's file is created when the first assistant message exists
(spec 1.5); an existing file gets each entry as one appended line, under an exclusive lock, after
indexing anything another process appended meanwhile (D2). Nothing here knows about LSP or models.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pi_lsp.session.context import (
    ROOT_SETTINGS,
    ContextCache,
    SessionContext,
    build_context,
    build_context_indexed,
    inherit_settings,
    path_to_root,
)
from pi_lsp.session.entries import CURRENT_VERSION
from pi_lsp.session.ids import (
    Clock,
    IdFactory,
    iso_time,
    new_entry_id,
    now,
    random_uuid,
    session_file_name,
)
from pi_lsp.session.jsonl import JsonObject, dumps, dumps_line
from pi_lsp.session.paths import session_dir
from pi_lsp.session.reader import parse_appended, read_session_file
from pi_lsp.session.records import Diagnostic, LoadedFile, Record, Settings
from pi_lsp.session.tree import SessionTree, build_tree
from pi_lsp.session.validate import validate_message
from pi_lsp.session.writer import SessionWriter

ABSENT: Any = object()
"""Marks an optional field that is left out of the entry (JavaScript ``undefined``)."""

Listener = Callable[[list[Record]], None]
"""Called with entries another process appended, after they were indexed."""


class EntryNotFoundError(KeyError):
    """An entry id that is not in the session."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(entry_id)
        self.entry_id = entry_id

    def __str__(self) -> str:
        return f"Entry {self.entry_id} not found"


class SessionStore:
    """An open session: header, entry index, leaf pointer, labels, and the file behind them."""

    def __init__(
        self,
        loaded: LoadedFile,
        *,
        header: JsonObject,
        persist: bool = True,
        clock: Clock = now,
        uuids: IdFactory = random_uuid,
    ) -> None:
        self.header = header
        """The session header (after migration)."""
        self.path: Path | None = loaded.path if persist else None
        """The session file; None for an in-memory session."""
        self.diagnostics: list[Diagnostic] = list(loaded.diagnostics)
        """Problems found while reading (and while catching up with other writers)."""
        self.from_version = loaded.from_version
        self._clock = clock
        self._uuids = uuids
        self._records: list[Record] = []
        self._by_id: dict[str, Record] = {}
        self._labels: dict[str, str] = {}
        self._name: str | None = None
        self._has_assistant = False
        self._leaf: str | None = None
        self._context = ContextCache(self._build_context)
        self._settings_reliable = True  # false once a duplicate id could have stale settings
        self._listeners: list[Listener] = []
        self._where = str(loaded.path) if persist else "<memory>"
        self._next_line = loaded.lines + 1  # physical line number of the next appended line
        self._on_disk = loaded.header is not None and persist
        self._rewrite_pending = loaded.migrated and persist
        self._writer: SessionWriter | None = None
        if self._on_disk and self.path is not None:
            self._writer = SessionWriter(
                self.path, size=loaded.size, needs_newline=loaded.needs_newline
            )
        self._index_all(loaded.records)
        if self._path_ready_to_flush():
            self._flush()

    # ----------------------------------------------------------------- factories

    @classmethod
    def create(
        cls,
        cwd: str,
        *,
        directory: Path | None = None,
        session_id: str | None = None,
        parent_session: str | None = None,
        persist: bool = True,
        records: Iterable[Record] = (),
        clock: Clock = now,
        uuids: IdFactory = random_uuid,
    ) -> SessionStore:
        """A new session for ``cwd``; its file is written with the first assistant message.

        ``records`` pre-populates it (a branched copy); the file is written at once if they hold
        an assistant message.
        """
        header: JsonObject = {"type": "session", "version": CURRENT_VERSION}
        header["id"] = session_id or uuids()
        header["timestamp"] = iso_time(clock())
        header["cwd"] = cwd
        if parent_session is not None:
            header["parentSession"] = parent_session
        folder = directory if directory is not None else session_dir(cwd)
        path = folder / session_file_name(header["timestamp"], header["id"])
        loaded = LoadedFile(path=path, header=None, records=list(records))
        return cls(loaded, header=header, persist=persist, clock=clock, uuids=uuids)

    @classmethod
    def in_memory(
        cls, cwd: str, *, clock: Clock = now, uuids: IdFactory = random_uuid
    ) -> SessionStore:
        """A session that is never written (pi's ``--no-session``)."""
        return cls.create(cwd, directory=Path("."), persist=False, clock=clock, uuids=uuids)

    @classmethod
    def open(
        cls, path: str | Path, *, clock: Clock = now, uuids: IdFactory = random_uuid
    ) -> SessionStore:
        """Open a session file; a missing or empty one becomes a new session at that path.

        Raises:
            SessionFileError: the file is not a session file; it is left untouched.
        """
        with _gc_paused():  # tens of thousands of fresh objects: collections would only slow this
            loaded = read_session_file(path, uuids=uuids)
            header = loaded.header
            if header is None:
                header = {"type": "session", "version": CURRENT_VERSION, "id": uuids()}
                header["timestamp"] = iso_time(clock())
                header["cwd"] = os.getcwd()
            return cls(loaded, header=header, clock=clock, uuids=uuids)

    # ----------------------------------------------------------------- reading

    @property
    def session_id(self) -> str:
        """The header id."""
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        """The working directory the header records."""
        cwd = self.header.get("cwd")
        return cwd if isinstance(cwd, str) else ""

    @property
    def leaf_id(self) -> str | None:
        """The current position; the next append becomes its child."""
        return self._leaf

    @property
    def records(self) -> list[Record]:
        """Every entry in file order (a copy of the list)."""
        return list(self._records)

    @property
    def entry_count(self) -> int:
        """Number of entries (header excluded)."""
        return len(self._records)

    @property
    def persisted(self) -> bool:
        """True once the header is on disk."""
        return self._on_disk

    @property
    def labels(self) -> dict[str, str]:
        """Current bookmark of every labelled entry."""
        return dict(self._labels)

    @property
    def session_name(self) -> str | None:
        """Latest non-empty ``session_info`` name, in file order."""
        return self._name

    def get(self, entry_id: str) -> Record | None:
        """The entry with this id, or None."""
        return self._by_id.get(entry_id)

    def require(self, entry_id: str) -> Record:
        """The entry with this id; raises :class:`EntryNotFoundError`."""
        record = self._by_id.get(entry_id)
        if record is None:
            raise EntryNotFoundError(entry_id)
        return record

    def label_of(self, entry_id: str) -> str | None:
        """The bookmark on an entry, if any."""
        return self._labels.get(entry_id)

    def children(self, entry_id: str) -> list[Record]:
        """Direct children in index order."""
        return [
            r
            for r in self._records
            if r.parent_id == entry_id and r.id != entry_id and self._by_id.get(r.id) is r
        ]

    def branch_path(self, from_id: str | None = None) -> list[Record]:
        """Entries from the root to ``from_id`` (default: the leaf), pi's ``getBranch``."""
        if from_id is not None:
            self.require(from_id)
        return path_to_root(self._by_id, from_id if from_id is not None else self._leaf)

    def tree(self) -> SessionTree:
        """Pi's ``getTree()``: roots, orphans as extra roots, children sorted by timestamp."""
        return build_tree(self._records, self._by_id, self._labels)

    def context(self, leaf_id: str | None = None) -> SessionContext:
        """The model context at ``leaf_id`` (default: the current leaf); incremental."""
        if leaf_id is not None:
            self.require(leaf_id)
        return self._context.get(self._by_id, leaf_id if leaf_id is not None else self._leaf)

    def add_listener(self, listener: Listener) -> None:
        """Be told about entries other processes append to this file."""
        self._listeners.append(listener)

    # ----------------------------------------------------------------- navigation

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an existing entry; nothing is written."""
        self.require(entry_id)
        self._leaf = entry_id

    def reset_leaf(self) -> None:
        """Leaf := none; the next append starts a new root."""
        self._leaf = None

    # ----------------------------------------------------------------- appends

    def append_message(self, message: JsonObject) -> str:
        """Append a conversation message (validated against pi's message models)."""
        validate_message(message)
        return self._append(lambda e: {**e, "message": message}, "message")

    def append_thinking_level_change(self, level: str) -> str:
        """Record a thinking-level change."""
        return self._append(lambda e: {**e, "thinkingLevel": level}, "thinking_level_change")

    def append_model_change(self, provider: str, model_id: str) -> str:
        """Record a model change."""
        return self._append(
            lambda e: {**e, "provider": provider, "modelId": model_id}, "model_change"
        )

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = ABSENT,
        from_hook: Any = ABSENT,
    ) -> str:
        """Append a compaction checkpoint (pi writes ``fromHook: false`` for its own)."""
        fields: JsonObject = {"summary": summary, "firstKeptEntryId": first_kept_entry_id}
        fields["tokensBefore"] = tokens_before
        return self._append(
            lambda e: _with_optional({**e, **fields}, details=details, fromHook=from_hook),
            "compaction",
        )

    def branch_with_summary(
        self,
        from_id: str | None,
        summary: str,
        details: Any = ABSENT,
        from_hook: Any = ABSENT,
    ) -> str:
        """Move the leaf to ``from_id`` (None: a new root) and hang a branch summary there."""
        if from_id is not None:
            self.require(from_id)
        self._leaf = from_id
        fields = {"fromId": from_id if from_id is not None else "root", "summary": summary}
        return self._append(
            lambda e: _with_optional({**e, **fields}, details=details, fromHook=from_hook),
            "branch_summary",
        )

    def append_custom_entry(self, custom_type: str, data: Any = ABSENT) -> str:
        """Extension state: part of the tree, never of the context."""
        head = _with_optional({"type": "custom", "customType": custom_type}, data=data)
        return self._append(lambda e: {**head, **e}, "custom", head_first=True)

    def append_custom_message(
        self, custom_type: str, content: Any, display: bool, details: Any = ABSENT
    ) -> str:
        """An extension message that enters the context as a user message."""
        head = {"type": "custom_message", "customType": custom_type, "content": content}
        head = _with_optional({**head, "display": display}, details=details)
        return self._append(lambda e: {**head, **e}, "custom_message", head_first=True)

    def append_label(self, target_id: str, label: str | None = None) -> str:
        """Set (non-empty) or clear (None or empty) the bookmark on an entry."""
        self.require(target_id)
        extra = (
            {"targetId": target_id} if label is None else {"targetId": target_id, "label": label}
        )
        return self._append(lambda e: {**e, **extra}, "label")

    def append_session_info(self, name: str) -> str:
        """Name the session (trimmed, as pi writes it)."""
        return self._append(lambda e: {**e, "name": name.strip()}, "session_info")

    def ensure_migrated(self) -> None:
        """Rewrite an old-version file as version 3 now (backup first); no-op otherwise."""
        if self._writer is not None and self._rewrite_pending:
            self._rewrite_migrated()

    def close(self) -> None:
        """Release the file descriptor (the store stays readable)."""
        if self._writer is not None:
            self._writer.close()

    # ----------------------------------------------------------------- internals

    def _append(
        self, build: Callable[[JsonObject], JsonObject], kind: str, *, head_first: bool = False
    ) -> str:
        self.ensure_migrated()
        writer = self._writer
        if writer is None:
            record = self._make_record(build, kind, head_first)
            self._index(record)
            self._leaf = record.id
            if self._path_ready_to_flush():
                self._flush()
            return record.id
        with writer.locked(self._on_external) as fd:
            record = self._make_record(build, kind, head_first)
            writer.write(fd, record.raw + b"\n")
            record.line = self._next_line
            self._next_line += 1
        self._index(record)
        self._leaf = record.id
        return record.id

    def _make_record(
        self, build: Callable[[JsonObject], JsonObject], kind: str, head_first: bool
    ) -> Record:
        entry_id = new_entry_id(self._by_id, self._uuids)
        timestamp = iso_time(self._clock())
        base: JsonObject = {"id": entry_id, "parentId": self._leaf, "timestamp": timestamp}
        value = build(base if head_first else {"type": kind, **base})
        return Record.from_value(value, dumps(value))

    def _path_ready_to_flush(self) -> bool:
        return self.path is not None and not self._on_disk and self._has_assistant

    def _flush(self) -> None:
        assert self.path is not None
        writer = SessionWriter(self.path, size=0, needs_newline=False)
        lines = [dumps_line(self.header)] + [r.raw + b"\n" for r in self._records]
        writer.append(b"".join(lines), self._on_external)
        self._next_line = len(lines) + 1
        self._writer = writer
        self._on_disk = True

    def _rewrite_migrated(self) -> None:
        assert self._writer is not None
        lines = [dumps_line(self.header)] + [r.raw + b"\n" for r in self._records]
        backup = self._writer.rewrite(b"".join(lines), f".v{self.from_version}.bak")
        self._rewrite_pending = False
        self.diagnostics.append(
            Diagnostic(str(self.path), 0, f"migrated from v{self.from_version}; backup {backup}")
        )

    def _index_all(self, records: Iterable[Record]) -> None:
        for record in records:
            self._index(record)
        self._leaf = self._records[-1].id if self._records else None
        self.diagnostics.extend(self._link_problems(self._records))

    def _index(self, record: Record) -> None:
        self._records.append(record)
        entry_id = record.id
        previous = self._by_id.get(entry_id)
        self._by_id[entry_id] = record
        parent = record.parent_id
        if parent is None or parent == entry_id:
            base: Settings | None = ROOT_SETTINGS
        else:
            parent_record = self._by_id.get(parent)
            if parent_record is not None:
                base = parent_record.settings
                record.parent_id = parent_record.id  # share one string object per id
            else:
                base = None
        record.settings = inherit_settings(record, base) if base is not None else None
        if previous is not None:
            self._settings_reliable = False
            self.diagnostics.append(
                Diagnostic(
                    self._where,
                    record.line,
                    f"duplicate id {entry_id} (replaces line {previous.line} in the index)",
                )
            )
        kind = record.type
        if kind == "message":
            if record.role == "assistant":
                self._has_assistant = True
        elif kind == "label":
            value = record.value
            target, label = value.get("targetId"), value.get("label")
            if isinstance(target, str):
                if label:
                    self._labels[target] = label
                else:
                    self._labels.pop(target, None)
        elif kind == "session_info":
            name = record.value.get("name")
            if name:
                self._name = name.strip() if isinstance(name, str) else name

    def _build_context(self, leaf_id: str | None) -> SessionContext:
        leaf = self._by_id.get(leaf_id) if leaf_id is not None else None
        if leaf is None:
            return SessionContext()
        if self._settings_reliable and leaf.settings is not None:
            return build_context_indexed(self._by_id, leaf, leaf.settings)
        return build_context(path_to_root(self._by_id, leaf_id))

    def _link_problems(self, records: Iterable[Record]) -> list[Diagnostic]:
        """Self-parented entries and orphans (kept, and shown as roots, as pi does)."""
        found = []
        by_id = self._by_id
        for record in records:
            parent = record.parent_id
            if parent is None or (parent in by_id and parent != record.id):
                continue
            reason = (
                f"entry {record.id} is its own parent"
                if parent == record.id
                else f"orphan entry {record.id}: parent {parent} missing"
            )
            found.append(Diagnostic(self._where, record.line, reason))
        return found

    def _on_external(self, data: bytes, offset: int) -> None:
        """Index lines another process appended (called under the file lock)."""
        assert self.path is not None
        fresh, problems = parse_appended(data, self.path, self._next_line)
        self._next_line += data.count(b"\n")
        self.diagnostics.extend(problems)
        if not fresh:
            return
        old_leaf = self._leaf
        for record in fresh:
            self._index(record)
        self.diagnostics.extend(self._link_problems(fresh))
        self._context.clear()
        if _descends_from(fresh, old_leaf):
            self._leaf = fresh[-1].id
        for listener in self._listeners:
            listener(fresh)


@contextmanager
def _gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _descends_from(fresh: list[Record], ancestor: str | None) -> bool:
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


def _with_optional(obj: JsonObject, **optional: Any) -> JsonObject:
    for key, value in optional.items():
        if value is not ABSENT:
            obj[key] = value
    return obj

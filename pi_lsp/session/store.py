"""SessionStore: one pi session file as an append-only tree with a leaf pointer (spec §1–2).

Every ``append_*`` hangs a new entry under the current leaf and moves the leaf to it; ``branch``
only moves the pointer. A new session's file is created with the first user or assistant message
(pi 1.6.0); an existing file gets each entry as one appended line, under an exclusive lock, after
indexing anything another process appended meanwhile (D2). An append that raised changed
nothing, on disk or in memory, so a retry never duplicates it. Entries another process appends
move the leaf only when they continue it and no turn holds :meth:`SessionStore.own_chain` (pi
takes no lock: a turn's entries must hang on the turn's own chain). Nothing here knows about LSP
or models.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pi_lsp.session.appends import EntryAppends
from pi_lsp.session.context import ContextBuilder, SessionContext
from pi_lsp.session.entries import CURRENT_VERSION, SessionHeader
from pi_lsp.session.jsonl import Diagnostic, JsonObject, Record, dumps, dumps_line
from pi_lsp.session.paths import (
    Clock,
    IdFactory,
    iso_time,
    new_entry_id,
    now,
    random_uuid,
    session_dir,
    session_file_name,
    uuid7,
)
from pi_lsp.session.reader import LoadedFile, gc_paused, read_session_file
from pi_lsp.session.runs import ProjectedWindow
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tree import (
    CONVERSATION_ROLES,
    EntryNotFoundError,
    SessionIndex,
    SessionTree,
    continues_chain,
)

Listener = Callable[[list[Record], bool], None]
"""Called with newly indexed entries; the flag is True when another process appended them."""


class SessionStore(EntryAppends):
    """An open session: header, entry index, leaf pointer, labels, and the file behind them.

    The typed ``append_*`` methods come from :class:`~pi_lsp.session.appends.EntryAppends`.
    """

    def __init__(
        self,
        loaded: LoadedFile,
        *,
        header: SessionHeader,
        persist: bool = True,
        clock: Clock = now,
        uuids: IdFactory = random_uuid,
    ) -> None:
        self.header = header
        """The session header (after migration)."""
        self.path: Path | None = loaded.path if persist else None
        """The session file; None for an in-memory session."""
        self._clock = clock
        self._uuids = uuids
        self._index = SessionIndex(str(loaded.path) if persist else "<memory>")
        self._index.diagnostics.extend(loaded.diagnostics)
        self._leaf: str | None = None
        index = self._index
        self._context = ContextBuilder(index.by_id, lambda: index.settings_reliable)
        self._listeners: list[Listener] = []
        self._own_chain = 0
        """Depth of :meth:`own_chain` blocks: while above 0, other writers never move the leaf."""
        self._file = SessionFile(self.path, loaded)
        self._index.add_all(loaded.records)
        self._leaf = loaded.records[-1].id if loaded.records else None
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
        """A new session for ``cwd``; its file is written with the first conversation message.

        ``records`` pre-populates it (a branched copy); the file is written at once if they hold
        a user or assistant message.
        """
        seconds = clock()
        header = SessionHeader(
            type="session",
            version=CURRENT_VERSION,
            id=session_id or uuid7(int(seconds * 1000), uuids()),
            timestamp=iso_time(seconds),
            cwd=cwd,
        )
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
        with gc_paused():  # tens of thousands of fresh objects: collections would only slow this
            loaded = read_session_file(path, uuids=uuids)
            header = loaded.header
            if header is None:
                header = SessionHeader(
                    type="session",
                    version=CURRENT_VERSION,
                    id=uuids(),
                    timestamp=iso_time(clock()),
                    cwd=os.getcwd(),
                )
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
    def from_version(self) -> int:
        """Version of the file on disk when it was opened (3 for current files)."""
        return self._file.from_version

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Problems found while reading (and while catching up with other writers)."""
        return self._index.diagnostics

    @property
    def records(self) -> list[Record]:
        """Every entry in file order (a copy of the list)."""
        return list(self._index.records)

    @property
    def entry_count(self) -> int:
        """Number of entries (header excluded)."""
        return len(self._index.records)

    @property
    def persisted(self) -> bool:
        """True once the header is on disk."""
        return self._file.on_disk

    @property
    def labels(self) -> dict[str, str]:
        """Current bookmark of every labelled entry."""
        return dict(self._index.labels)

    @property
    def session_name(self) -> str | None:
        """The latest ``session_info`` name in file order, trimmed; None when it is empty."""
        return self._index.name

    def get(self, entry_id: str) -> Record | None:
        """The entry with this id, or None."""
        return self._index.by_id.get(entry_id)

    def require(self, entry_id: str) -> Record:
        """The entry with this id; raises :class:`EntryNotFoundError`."""
        record = self._index.by_id.get(entry_id)
        if record is None:
            raise EntryNotFoundError(entry_id)
        return record

    def label_of(self, entry_id: str) -> str | None:
        """The bookmark on an entry, if any."""
        return self._index.labels.get(entry_id)

    def children(self, entry_id: str) -> list[Record]:
        """Direct children in index order."""
        return self._index.children(entry_id)

    def branch_path(self, from_id: str | None = None) -> list[Record]:
        """Entries from the root to ``from_id`` (default: the leaf), pi's ``getBranch``."""
        if from_id is not None:
            self.require(from_id)
        return self._index.path(from_id if from_id is not None else self._leaf)

    def tree(self) -> SessionTree:
        """Pi's ``getTree()``: roots, orphans as extra roots, children sorted by timestamp."""
        return self._index.tree()

    def context(self, leaf_id: str | None = None) -> SessionContext:
        """The model context at ``leaf_id`` (default: the current leaf); incremental."""
        if leaf_id is not None:
            self.require(leaf_id)
        return self._context.build(leaf_id if leaf_id is not None else self._leaf)

    def context_run(self, leaf_id: str | None = None) -> ProjectedWindow | None:
        """The entries the context at ``leaf_id`` is made of and their projection, flat.

        What :meth:`context` builds from, for a compaction preparation to read; None when only
        :func:`~pi_lsp.session.projection.project_path` gives it (see ``ContextBuilder.run``).
        """
        leaf = leaf_id if leaf_id is not None else self._leaf
        return self._context.run(leaf) if leaf is not None else None

    def add_listener(self, listener: Listener) -> None:
        """Be told about every new entry (appended here or by another process)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop telling ``listener`` about new entries."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def refresh(self) -> list[Record]:
        """Index what other processes appended since the last look (nothing is written)."""
        before = len(self._index.records)
        self._file.catch_up(self._on_external)
        return self._index.records[before:]

    @contextmanager
    def own_chain(self) -> Iterator[list[Record]]:
        """Keep every entry appended inside the block on this process's own chain.

        What other processes appended before is indexed first (the leaf follows it when it
        continues the leaf, as outside the block). Inside, their entries are indexed and
        reported to listeners, but the leaf never moves onto them: pi takes no lock and keeps
        its leaf in memory, so its turn and this one become sibling branches instead of one
        reply hanging under the other's. The yielded list collects those foreign entries.
        """
        self.refresh()
        foreign: list[Record] = []

        def collect(records: list[Record], external: bool) -> None:
            if external:
                foreign.extend(records)

        self._own_chain += 1
        self._listeners.append(collect)
        try:
            yield foreign
        finally:
            self._own_chain -= 1
            self.remove_listener(collect)

    def _notify(self, records: list[Record], external: bool) -> None:
        for listener in list(self._listeners):
            listener(records, external)

    # ----------------------------------------------------------------- navigation

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an existing entry; nothing is written."""
        self.require(entry_id)
        self._leaf = entry_id

    def reset_leaf(self) -> None:
        """Leaf := none; the next append starts a new root."""
        self._leaf = None

    def ensure_migrated(self) -> None:
        """Rewrite an old-version file as version 3 now (backup first); no-op otherwise."""
        note = self._file.ensure_migrated(self._content)
        if note is not None:
            self._index.diagnostics.append(note)

    def close(self) -> None:
        """Release the file descriptor (the store stays readable)."""
        self._file.close()

    # ----------------------------------------------------------------- internals

    def _append(
        self, build: Callable[[JsonObject], JsonObject], kind: str, *, head_first: bool = False
    ) -> str:
        self.ensure_migrated()
        if self._file.writer is None:
            record = self._make_record(build, kind, head_first)
            if self._path_ready_to_flush(record):
                self._flush(record)  # raises before anything changed in memory
            self._index.add(record)
            self._leaf = record.id
        else:
            record = self._file.append(
                lambda: self._make_record(build, kind, head_first), self._on_external
            )
            self._index.add(record)
            self._leaf = record.id
        self._notify([record], False)
        return record.id

    def _make_record(
        self, build: Callable[[JsonObject], JsonObject], kind: str, head_first: bool
    ) -> Record:
        entry_id = new_entry_id(self._index.by_id, self._uuids)
        timestamp = iso_time(self._clock())
        base: JsonObject = {"id": entry_id, "parentId": self._leaf, "timestamp": timestamp}
        value = build(base if head_first else {"type": kind, **base})
        return Record.from_value(value, dumps(value))

    def _path_ready_to_flush(self, extra: Record | None = None) -> bool:
        """True when the file must be created now (with ``extra`` about to be appended)."""
        if self.path is None or self._file.on_disk:
            return False
        if self._index.has_conversation:
            return True
        return extra is not None and extra.type == "message" and extra.role in CONVERSATION_ROLES

    def _content(self) -> bytes:
        """The whole file: header and every entry, one line each."""
        return dumps_line(self.header) + b"".join(r.raw + b"\n" for r in self._index.records)

    def _flush(self, extra: Record | None = None) -> None:
        """Create the file: header, every entry so far, and ``extra``."""
        records = self._index.records if extra is None else [*self._index.records, extra]
        adopted = self._file.create(
            dumps_line(self.header), [r.raw + b"\n" for r in records], self._on_external
        )
        if adopted is not None:  # another process created the file first: one header, theirs
            self.header = adopted

    def _on_external(self, data: bytes, offset: int) -> None:
        """Index lines another process appended (called under the file lock)."""
        fresh, problems = self._file.parse_external(data)
        self._index.diagnostics.extend(problems)
        if not fresh:
            return
        old_leaf = self._leaf
        for record in fresh:
            self._index.add(record)
        self._index.diagnostics.extend(self._index.link_problems(fresh))
        self._context.clear()
        if not self._own_chain and continues_chain(fresh, old_leaf):
            self._leaf = fresh[-1].id
        self._notify(fresh, True)

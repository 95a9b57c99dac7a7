"""The in-memory index of a session file: one :class:`Record` per entry, plus load diagnostics.

A record keeps the four index fields and the raw line; the full JSON object is parsed on first
use. Opening a 22k-entry file therefore costs one validating scan, and memory stays close to the
file size (issue targets: open faster than pi, growth at most 3x the file).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from pi_lsp.session.jsonl import JsonObject, loads

PathAnchors = tuple[str | None, str | None, str | None]
"""Ids of the last thinking-level change, model source and compaction on an entry's path."""


class Record(msgspec.Struct, gc=False, repr_omit_defaults=True):
    """One entry of a session: index fields eagerly, the JSON object lazily.

    A msgspec struct outside the cyclic garbage collector (records never form cycles): a store
    holds tens of thousands of them, and every full collection would otherwise walk them all.
    """

    id: str
    """Entry id (8 hex characters when pi or pi_lsp wrote it)."""
    parent_id: str | None
    """Parent entry id; None for a root."""
    type: str
    """Entry type (``message``, ``compaction``, ... or a type pi_lsp does not know)."""
    timestamp: str
    """ISO time of the append."""
    raw: bytes
    """The JSON text of the line, without the newline."""
    _value: JsonObject | None = None
    line: int = 0
    """1-based line number in the file; 0 for entries not yet written."""
    role: str | None = None
    """``message.role`` of a message entry (indexed without parsing the message)."""
    settings: PathAnchors | None = None
    """Ids of the thinking-level, model and compaction entries in force here; set by the store
    when it indexes the record, None when unknown (the context then walks the path)."""

    @classmethod
    def from_value(cls, value: JsonObject, raw: bytes, line: int = 0) -> Record:
        """A record for an entry object built or migrated in memory."""
        message = value.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        parent = value.get("parentId")
        return cls(
            str(value.get("id")),
            parent if isinstance(parent, str) else None,
            str(value.get("type", "")),
            str(value.get("timestamp", "")),
            raw,
            value,
            line,
            role if isinstance(role, str) else None,
        )

    @property
    def value(self) -> JsonObject:
        """The parsed entry. Shared, not copied: callers must not mutate it."""
        value = self._value
        if value is None:
            value = self._value = loads(self.raw)
        return value


@dataclass(slots=True)
class Diagnostic:
    """A problem found while reading a session file; the load goes on."""

    path: str
    line: int
    """1-based physical line number (0 when the problem is not tied to one line)."""
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


MAX_DIAGNOSTICS = 100
"""Problems kept per session; the rest are counted (a 9 MB file of garbage lines made one
diagnostic per line: 730 MB kept for messages nobody reads)."""


class DiagnosticList(list[Diagnostic]):
    """A list of diagnostics that keeps the first :data:`MAX_DIAGNOSTICS` and counts the rest.

    Once full, the last item is a summary (line 0) saying how many more problems there were and
    between which lines. ``offset`` is added to the line of every diagnostic appended (lines
    read from the middle of a file).
    """

    def __init__(self, where: str = "", limit: int = MAX_DIAGNOSTICS, offset: int = 0) -> None:
        super().__init__()
        self.where = where
        self.limit = limit
        self.offset = offset
        self.dropped = 0
        self.first_dropped = self.last_dropped = 0
        self._summary = Diagnostic(where, 0, "")

    def append(self, item: Diagnostic) -> None:
        """Keep ``item`` while there is room, else count it in the summary."""
        item.line += self.offset if item.line else 0
        if len(self) < self.limit and not self.dropped:
            super().append(item)
        else:
            self._count(1, item.line, item.line, item.path)

    def extend(self, items: Iterable[Diagnostic]) -> None:
        """:meth:`append` each item (another list's summary is merged, not counted as one)."""
        items = list(items) if not isinstance(items, DiagnosticList) else items
        dropped = items.dropped if isinstance(items, DiagnosticList) else 0
        for item in items[:-1] if dropped else items:
            self.append(item)
        if isinstance(items, DiagnosticList) and dropped:
            self._count(dropped, items.first_dropped, items.last_dropped, items.where)

    def _count(self, count: int, first: int, last: int, path: str) -> None:
        if not self.dropped:
            self.first_dropped = first
            self._summary.path = self.where or path
            super().append(self._summary)
        self.dropped += count
        self.last_dropped = max(self.last_dropped, last)
        self._summary.reason = (
            f"{self.dropped} more problem(s) not listed, "
            f"lines {self.first_dropped}–{self.last_dropped}"
        )


class SessionFileError(Exception):
    """A session file that cannot be used; it is left exactly as it is (D2)."""

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
        self.path = str(path)
        self.line = line
        self.reason = reason


@dataclass(slots=True)
class LoadedFile:
    """What the reader found in a file."""

    path: Path
    header: JsonObject | None
    """None for an empty (or missing) file: a new session that will be written there."""
    records: list[Record]
    diagnostics: list[Diagnostic] = field(default_factory=DiagnosticList)
    from_version: int = 3
    """Version on disk; below 3 the records were migrated in memory."""
    size: int = 0
    """Bytes of the file that were read."""
    lines: int = 0
    """Newline characters in what was read (physical lines)."""
    needs_newline: bool = False
    """The file does not end with a newline: the next append must start a fresh line."""
    prefix: bytes = b""
    """The file's bytes up to the end of the header line (what must not change under us)."""

    @property
    def migrated(self) -> bool:
        """True when the file on disk is older than the records in memory."""
        return self.from_version < 3 and self.header is not None


class EntryNotFoundError(KeyError):
    """An entry id that is not in the session."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(entry_id)
        self.entry_id = entry_id

    def __str__(self) -> str:
        return f"Entry {self.entry_id} not found"

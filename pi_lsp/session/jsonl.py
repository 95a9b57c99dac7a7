"""Session lines: JSON exactly as pi reads and writes it, and the :class:`Record` each entry is.

pi parses each line with ``JSON.parse`` and writes ``JSON.stringify(entry)`` plus a newline.
This module reproduces both on bytes: a fast path through msgspec (compact output, raw
non-ASCII, key order kept) and a stdlib fallback for the corners msgspec refuses but JavaScript
accepts (lone UTF-16 surrogate escapes, invalid UTF-8 inside strings). Pure; no file access.

A :class:`Record` keeps an entry's index fields and its raw line; the full JSON object is
parsed on first use. Opening a 22k-entry file therefore costs one validating scan, and memory
stays close to the file size (issue targets: open faster than pi, growth at most 3x the file).
Problems met while reading lines are :class:`Diagnostic` items (the load goes on); a file that
cannot be used at all is a :class:`SessionFileError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

if TYPE_CHECKING:  # entries names the shapes of these dicts; it imports this module
    from pi_lsp.session.entries import AnyEntry

JsonObject = dict[str, Any]
"""A parsed JSON object of no particular shape. Session entries and messages stay parsed JSON so
that fields pi_lsp does not know survive every load, copy and write untouched (decision D1); where
the shape is known, :mod:`pi_lsp.session.messages`, :mod:`pi_lsp.session.entries` and
:mod:`pi_lsp.agent.events` name it with TypedDicts over these same dicts."""


class JsonLineError(ValueError):
    """A line is not a JSON value that ``JSON.parse`` would accept."""


class _Role(msgspec.Struct, gc=False):
    role: str | None = None


class IndexFields(msgspec.Struct, gc=False):
    """The fields every entry is indexed by; the rest of the line is validated, not built.

    Outside the garbage collector, as :class:`Record`: one is decoded per line at every open.
    """

    type: str | None = None
    id: str | None = None
    parentId: str | None = None
    timestamp: str | None = None
    message: _Role | None = None

    @property
    def role(self) -> str | None:
        """``message.role`` of a message entry."""
        message = self.message
        return message.role if message is not None else None


_decode_any = msgspec.json.Decoder().decode
decode_index = msgspec.json.Decoder(IndexFields).decode
"""Fast typed decode of the index fields; raises ``msgspec.DecodeError`` on anything unusual."""
_encode = msgspec.json.Encoder().encode


def _reject_constant(name: str) -> Any:
    raise JsonLineError(f"{name} is not JSON")


_fallback_decoder = json.JSONDecoder(parse_constant=_reject_constant)
"""One decoder for every fallback parse (``json.loads`` with a keyword builds a new one each
time: most of the cost of a file full of garbage lines)."""


def _fallback_loads(line: bytes) -> Any:
    """Parse like ``JSON.parse`` where msgspec is stricter than JavaScript."""
    text = line.decode("utf-8", "replace")  # Node decodes files with U+FFFD replacement
    try:
        return _fallback_decoder.decode(text)
    except (ValueError, RecursionError) as exc:
        raise JsonLineError(str(exc)) from None


def loads(line: bytes) -> Any:
    """Parse one JSON text (whitespace around it allowed), raising :class:`JsonLineError`."""
    try:
        return _decode_any(line)
    except msgspec.DecodeError:
        return _fallback_loads(line)


def load_index(line: bytes) -> tuple[IndexFields, JsonObject | None]:
    """Validate a whole line as JSON and return its index fields.

    The second item is the fully parsed object when the fast path could not type the index fields
    (a foreign writer's odd types); callers then read fields from it.
    """
    try:
        return decode_index(line), None
    except msgspec.ValidationError:
        value = loads(line)
    except msgspec.DecodeError:
        value = _fallback_loads(line)
    if not isinstance(value, dict):
        raise JsonLineError("line is JSON but not an object")
    message = value.get("message")
    role = _str_or_none(message.get("role")) if isinstance(message, dict) else None
    fields = IndexFields(
        type=_str_or_none(value.get("type")),
        id=_str_or_none(value.get("id")),
        parentId=_str_or_none(value.get("parentId")),
        timestamp=_str_or_none(value.get("timestamp")),
        message=_Role(role) if role is not None else None,
    )
    return fields, value


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def dumps(value: Any) -> bytes:
    """Serialize like ``JSON.stringify``: compact, non-ASCII raw, insertion order kept."""
    try:
        return _encode(value)
    except (UnicodeEncodeError, TypeError, OverflowError, msgspec.EncodeError):
        # Lone surrogates cannot be UTF-8; escaped ASCII JSON is the same value.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def dumps_line(value: Any) -> bytes:
    """One JSONL record: the compact JSON followed by a newline."""
    return dumps(value) + b"\n"


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def js_len(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript's ``String.length`` counts."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


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
    def value(self) -> AnyEntry:
        """The parsed entry. Shared, not copied: callers must not mutate it.

        Typed as pi types ``JSON.parse`` output, unvalidated; narrow it with
        :func:`pi_lsp.session.entries.known` or :func:`~pi_lsp.session.entries.entry_as`.
        """
        value = self._value
        if value is None:
            value = self._value = loads(self.raw)
        return cast("AnyEntry", value)


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

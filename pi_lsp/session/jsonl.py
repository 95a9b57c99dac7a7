"""JSON values and lines exactly as pi reads and writes them.

pi parses each line with ``JSON.parse`` and writes ``JSON.stringify(entry)`` plus a newline.
This module reproduces both on bytes: a fast path through msgspec (compact output, raw
non-ASCII, key order kept) and a stdlib fallback for the corners msgspec refuses but JavaScript
accepts (lone UTF-16 surrogate escapes, invalid UTF-8 inside strings). Pure; no file access.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

JsonObject = dict[str, Any]
"""A parsed JSON object of no particular shape. Session entries and messages stay parsed JSON so
that fields pi_lsp does not know survive every load, copy and write untouched (decision D1); where
the shape is known, :mod:`pi_lsp.session.messages`, :mod:`pi_lsp.session.entries` and
:mod:`pi_lsp.agent.events` name it with TypedDicts over these same dicts."""


class JsonLineError(ValueError):
    """A line is not a JSON value that ``JSON.parse`` would accept."""


class _Role(msgspec.Struct):
    role: str | None = None


class IndexFields(msgspec.Struct):
    """The fields every entry is indexed by; the rest of the line is validated, not built."""

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

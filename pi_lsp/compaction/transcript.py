r"""History as text for a summary request (pi's ``serializeConversation``) and the files it touched.

JavaScript's ``JSON.stringify`` and ``String.length`` come first: pi measures a tool call as
``name.length + JSON.stringify(arguments).length`` and serializes argument values with
``JSON.stringify``; Python's ``json`` differs in number formatting (``1e-07`` vs ``1e-7``,
``1.0`` vs ``1``), lone surrogates (raw vs ``\\udXXX``) and the order of integer-like object
keys (JavaScript lists them first).

:class:`FileOps` collects which files a history read and modified, carried from summary to
summary (spec 6.5): only assistant ``read``, ``write`` and ``edit`` tool calls with a string
``path`` count, kept exactly as the model wrote it, sorted the way JavaScript sorts strings
(UTF-16 code units).

The transcript: messages become labelled parts joined by blank lines, so the summarizing model
reads a transcript instead of continuing a chat. Tool results are cut to 2000 UTF-16 code units
with a marker; user and assistant text is never cut; unlike pi, the cut never splits a surrogate
pair. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.compaction.models import CompactionDetails, FileOpsOut
from pi_lsp.session.jsonl import JsonObject, js_len
from pi_lsp.session.messages import convert_to_llm

__all__ = ["js_len", "js_number", "js_stringify", "utf16_prefix"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_REPR = re.compile(r"(\d+)(?:\.(\d+))?(?:e([+-]\d+))?")
_MAX_INDEX = 2**32 - 2


def js_number(value: float) -> str:
    """``JSON.stringify`` of a number: shortest digits, JavaScript's exponent rules."""
    if value != value or value in (float("inf"), float("-inf")):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    match = _REPR.fullmatch(repr(abs(value)))
    if match is None:  # pragma: no cover - repr of a finite float always matches
        return repr(value)
    whole, fraction, exponent = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    # value = 0.<significant> × 10^point
    point = len(whole) + exponent - (len(all_digits) - len(significant))
    return sign + _place_point(significant.rstrip("0") or "0", point)


def _place_point(digits: str, point: int) -> str:
    """Digits ``d1..dk`` with the value ``0.d1..dk × 10^point``, written as JavaScript does."""
    count = len(digits)
    if count <= point <= 21:
        return digits + "0" * (point - count)
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    mantissa = digits[0] + (f".{digits[1:]}" if count > 1 else "")
    exponent = point - 1
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _js_string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if quoted.isascii() else _LONE_SURROGATE.sub(_escape_surrogate, quoted)


def _js_keys(obj: dict[str, Any]) -> list[str]:
    """Object keys in JavaScript's enumeration order: array indices ascending, then the rest."""
    keys = list(obj)
    indices = [k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not indices:
        return keys
    rest = [k for k in keys if k not in set(indices)]
    return sorted(indices, key=int) + rest


_FLAT = frozenset({str, int, bool, type(None)})
"""Value types Python's C encoder writes exactly as JavaScript does (floats differ)."""


def _flat_json(obj: dict[str, Any]) -> str | None:
    """Fast path for the usual tool arguments: one object of strings, ints, booleans, nulls."""
    if any(type(v) not in _FLAT for v in obj.values()) or any(k[:1].isdigit() for k in obj):
        return None
    out = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return out if out.isascii() else _LONE_SURROGATE.sub(_escape_surrogate, out)


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def js_stringify(value: Any) -> str:
    """Compact JSON exactly as ``JSON.stringify`` writes it for parsed JSON values."""
    if type(value) is dict:
        flat = _flat_json(value)
        if flat is not None:
            return flat
    if isinstance(value, str):
        return _js_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{_js_string(k)}:{js_stringify(value[k])}" for k in _js_keys(value))
            + "}"
        )
    return "null"


def js_object_items(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    """``Object.entries(obj)``: key/value pairs in JavaScript's order."""
    return [(key, obj[key]) for key in _js_keys(obj)]


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` of at most ``units`` UTF-16 code units.

    Unlike JavaScript's ``slice``, a surrogate pair that would be cut in half is left out
    entirely, so the result is always well-formed text.
    """
    if text.isascii():
        return text[:units]
    taken = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if taken + width > units:
            return text[:index]
        taken += width
    return text


_KINDS = {"read": "read", "write": "written", "edit": "edited"}


@dataclass(slots=True)
class FileOps:
    """pi's ``FileOperations``: three insertion-ordered sets of paths."""

    read: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)

    def add_details(self, details: Any) -> None:
        """Fold in the ``{readFiles, modifiedFiles}`` of an earlier summary (modified → edited)."""
        if not isinstance(details, dict):
            return
        for key, target in (("readFiles", self.read), ("modifiedFiles", self.edited)):
            paths = details.get(key)
            if isinstance(paths, list):
                target.update(dict.fromkeys(paths))

    def add_message(self, message: JsonObject) -> None:
        """Record the file tool calls of a message; messages without any are ignored.

        An assistant's tool calls count, and so do the calls a codemode script made
        (``toolResult.nestedCalls``, pi 1.6.0).
        """
        role = message.get("role")
        if role == "toolResult":
            nested = message.get("nestedCalls")
            calls = nested.get("calls") if isinstance(nested, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict):
                    self._add_call(call.get("name"), call.get("arguments"))
            return
        if role != "assistant":
            return
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "toolCall":
                self._add_call(block.get("name"), block.get("arguments"))

    def _add_call(self, name: object, args: object) -> None:
        kind = _KINDS.get(name) if isinstance(name, str) else None
        path = args.get("path") if isinstance(args, dict) else None
        if kind is not None and isinstance(path, str) and path:
            getattr(self, kind)[path] = None

    def add_messages(self, messages: Iterable[JsonObject]) -> None:
        """:meth:`add_message` for each message."""
        for message in messages:
            self.add_message(message)

    def lists(self) -> CompactionDetails:
        """pi's ``computeFileLists``: modified = edited ∪ written; read-only = read − modified."""
        modified = {**self.edited, **self.written}
        read_only = [path for path in self.read if path not in modified]
        return CompactionDetails(
            read_files=sorted(read_only, key=utf16_key),
            modified_files=sorted(modified, key=utf16_key),
        )

    def to_out(self) -> FileOpsOut:
        """The corpus's ``fileOps`` shape."""
        return FileOpsOut(
            read=list(self.read), written=list(self.written), edited=list(self.edited)
        )


def utf16_key(text: str) -> bytes:
    """Sort key giving JavaScript's default string order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """pi's ``formatFileOperations``: the ``<read-files>``/``<modified-files>`` blocks, or ""."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


TOOL_RESULT_MAX_CHARS = 2000
"""UTF-16 code units of a tool result kept in a summary request."""


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """``text`` cut to ``max_chars`` UTF-16 units plus ``[... N more characters truncated]``."""
    length = js_len(text)
    if length <= max_chars:
        return text
    kept = utf16_prefix(text, max_chars)
    return f"{kept}\n\n[... {length - js_len(kept)} more characters truncated]"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        block["text"]
        for block in (content if isinstance(content, list) else ())
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _tool_call(block: JsonObject) -> str:
    args = block.get("arguments")
    pairs = js_object_items(args) if isinstance(args, dict) else []
    rendered = ", ".join(f"{key}={js_stringify(value)}" for key, value in pairs)
    return f"{_str(block.get('name'))}({rendered})"


def _assistant_parts(content: Any) -> list[str]:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[str] = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(_str(block.get("text")))
        elif kind == "thinking":
            thinking.append(_str(block.get("thinking")))
        elif kind == "toolCall":
            calls.append(_tool_call(block))
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Iterable[JsonObject]) -> str:
    """Provider messages (``user``/``assistant``/``toolResult``) as a labelled transcript."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            parts.extend(_assistant_parts(message.get("content")))
        elif role == "toolResult":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


def serialize_messages(messages: Iterable[JsonObject]) -> str:
    """Agent messages (any role) converted with ``convert_to_llm`` and then serialized."""
    return serialize_conversation(convert_to_llm(messages))

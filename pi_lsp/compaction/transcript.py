"""History as text for a summary request (pi's ``serializeConversation``) and the files it touched.

Both are written as pi writes them, JavaScript's way (:mod:`pi_lsp.javascript`): argument
values with ``JSON.stringify``, lengths and cuts in UTF-16 code units.

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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.compaction.models import CompactionDetails, FileOpsOut
from pi_lsp.javascript import js_object_items, js_stringify, utf16_key, utf16_prefix
from pi_lsp.session.convert import convert_to_llm
from pi_lsp.session.jsonl import JsonObject, js_len

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

"""Which files a history read and modified, carried from summary to summary (spec 6.5). Pure.

Only assistant ``read``, ``write`` and ``edit`` tool calls with a string ``path`` count, and the
path is kept exactly as the model wrote it. Lists are sorted the way JavaScript sorts strings
(UTF-16 code units), which differs from Python's code-point order for astral characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.compaction.models import CompactionDetails, FileOpsOut
from pi_lsp.session.jsonl import JsonObject

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

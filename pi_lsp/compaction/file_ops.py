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
        """Record the file tool calls of an assistant message (others are ignored)."""
        if message.get("role") != "assistant":
            return
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict) or block.get("type") != "toolCall":
                continue
            kind = _KINDS.get(block.get("name"))  # type: ignore[arg-type]
            args = block.get("arguments")
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

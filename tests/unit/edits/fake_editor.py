"""An in-memory editor behind the ``EditorBridge`` protocol, for EditorFileSystem tests.

It keeps two views of every open buffer, as a real connection does: the editor's own text and
version, and the server's synced copy, which catches up when the editor's ``didChange`` is
delivered (at once by default, or on ``deliver()``). ``apply_edit`` behaves like VS Code: a
versioned edit against an older version is refused, a ``CreateFile`` creates an empty file on
disk unless it exists, and a created file is opened to the server when ``open_created`` is set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pi_lsp.edits import (
    ApplyOutcome,
    CreateFile,
    OpenDocument,
    PositionEncoding,
    TextChange,
    WorkspaceChange,
    apply_edits,
    path_to_uri,
)
from pi_lsp.edits.bridge import uri_to_path


@dataclass
class Buffer:
    uri: str
    text: str
    version: int
    synced: OpenDocument | None = None
    """What the server knows; None while the buffer is not open to the server."""


@dataclass
class FakeEditor:
    can_apply_edits: bool = True
    document_changes: bool = True
    create_files: bool = True
    change_annotations: bool = True
    position_encoding: PositionEncoding = "utf-16"
    deliver_changes: bool = True
    open_created: bool = True
    refuse: str | None = None
    """When set, every applyEdit is answered ``applied: false`` with this reason."""
    buffers: dict[str, Buffer] = field(default_factory=dict)
    requests: list[WorkspaceChange] = field(default_factory=list)
    watch: bool = False
    """Offer ``watch_text`` (the check of an applied edit's reported text)."""
    misapply: str | None = None
    """When set, an applied edit leaves this text instead of the edit's result (a client that
    applied it at stale positions) and still answers ``applied: true``."""
    told: list[str] = field(default_factory=list)
    """Messages shown to the user."""

    def open(self, path: str, text: str, version: int = 1) -> None:
        """The user opens ``path`` with ``text`` (didOpen delivered)."""
        uri = path_to_uri(path)
        self.buffers[path] = Buffer(uri, text, version, OpenDocument(uri, text, version))

    def open_file(
        self, file: Path, saved: str, unsaved: str | None = None, version: int = 1
    ) -> str:
        """Write ``saved`` to ``file`` and open it, its buffer holding ``unsaved`` if given."""
        file.write_text(saved, newline="")
        self.open(str(file), saved if unsaved is None else unsaved, version)
        return str(file)

    def type(self, path: str, text: str, *, deliver: bool = True) -> None:
        """The user changes the buffer; the didChange reaches the server now or on ``deliver``."""
        buffer = self.buffers[path]
        buffer.text, buffer.version = text, buffer.version + 1
        if deliver:
            buffer.synced = OpenDocument(buffer.uri, text, buffer.version)

    def deliver(self) -> None:
        """Deliver every pending didChange (and didOpen of created files)."""
        for buffer in self.buffers.values():
            if buffer.synced is not None or self.open_created:
                buffer.synced = OpenDocument(buffer.uri, buffer.text, buffer.version)

    def open_document(self, path: str) -> OpenDocument | None:
        buffer = self.buffers.get(path)
        return buffer.synced if buffer is not None else None

    async def apply_edit(self, change: WorkspaceChange) -> ApplyOutcome:
        self.requests.append(change)
        if self.refuse is not None:
            return ApplyOutcome(False, self.refuse)
        for operation in change.operations:
            if isinstance(operation, CreateFile):
                self._create(operation)
                continue
            outcome = self._edit(operation)
            if not outcome.applied:
                return outcome
        return ApplyOutcome(True)

    def watch_text(self, uri: str, version: int | None, expected: str) -> FakeWatch | None:
        if not self.watch:
            return None
        path = uri_to_path(uri)
        buffer = self.buffers.get(path or "")
        if buffer is None or buffer.synced is None or buffer.synced.version != version:
            return None
        return FakeWatch(buffer, version, expected)

    def tell_user(self, message: str) -> None:
        self.told.append(message)

    def _create(self, operation: CreateFile) -> None:
        path = uri_to_path(operation.uri)
        assert path is not None
        if not os.path.exists(path):
            open(path, "w").close()
        self.buffers[path] = Buffer(operation.uri, "", 1)
        if self.open_created and self.deliver_changes:
            self.buffers[path].synced = OpenDocument(operation.uri, "", 1)

    def _edit(self, operation: TextChange) -> ApplyOutcome:
        path = uri_to_path(operation.uri)
        buffer = self.buffers.get(path or "")
        if buffer is None:
            return ApplyOutcome(False, f"no buffer for {operation.uri}")
        if operation.version is not None and operation.version != buffer.version:
            return ApplyOutcome(False, f"version {operation.version} != {buffer.version}")
        buffer.text = apply_edits(buffer.text, operation.edits, self.position_encoding)
        if self.misapply is not None:
            buffer.text = self.misapply
        buffer.version += 1
        if self.deliver_changes and (buffer.synced is not None or self.open_created):
            buffer.synced = OpenDocument(buffer.uri, buffer.text, buffer.version)
        return ApplyOutcome(True)


@dataclass
class FakeWatch:
    """The fake's ``TextWatch``: it sees whole texts only (one change per delivery)."""

    buffer: Buffer
    version: int | None
    expected: str
    closed: bool = False

    def verdict(self) -> bool | None:
        synced = self.buffer.synced
        if synced is None or synced.version == self.version:
            return None
        return synced.text == self.expected

    def close(self) -> None:
        self.closed = True

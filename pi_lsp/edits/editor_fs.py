"""``EditorFileSystem``: the tools' file system when an editor is attached (decision D6).

- Reads of a file the editor has open return its buffer, unsaved changes included (and the text
  of an edit the editor accepted but has not reported back yet, see ``bridge``).
- Writes to such a file become one ``workspace/applyEdit``: minimal edits against the text the
  tool read, versioned with the version it had, labelled ``pi: <tool>``. A refusal, an error or
  no answer raises ``ToolError`` telling the model to read the file again; nothing is retried and
  nothing goes to the disk behind the editor's back.
- A new file is created in the editor (``CreateFile`` plus its content) when the client supports
  resource operations; otherwise, and for files the editor does not have open, the disk is used.
- Edit mode ``disk`` (or a client without ``workspace/applyEdit``) sends every write to the disk,
  but refuses one that would go behind an open buffer holding unsaved changes.

Writes to one file are serialized, and a write waits until the editor has reported the result
of the previous one (its ``didChange``), so edits are always computed against known text. When
the bridge can watch documents, an edit the editor calls applied is only a success once the
text it reports back shows the edit's result; otherwise it is a failed edit and the user is
told that an undo restores the file.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from pi_lsp.edits.bridge import (
    DISK_MODE,
    NO_APPLY_EDIT,
    CreateFile,
    DiskStamp,
    EditMode,
    EditorBridge,
    Overlay,
    ReadSnapshot,
    TextChange,
    TextWatch,
    WorkspaceChange,
    annotation_label,
    changed_since_read,
    current_tool,
    mismatch,
    path_to_uri,
    refused,
    remember_read,
    unconfirmed,
    unsaved_changes,
    uri_key,
    user_mismatch,
)
from pi_lsp.edits.bridge import take_read as _take_read
from pi_lsp.edits.diff import Edit, edit_intact, text_edits
from pi_lsp.tools.base import ToolError
from pi_lsp.tools.fs import FileStat, FileSystem, LocalFileSystem, encode_utf8


@dataclass(frozen=True, slots=True)
class _View:
    """The editor's side of a file: its URI, text and version (None: not versioned)."""

    uri: str
    text: str
    version: int | None
    created: bool = False
    """Text of a file created in the editor that the editor has not opened to the server."""


class EditorFileSystem:
    """``FileSystem`` over an ``EditorBridge``, falling back to ``disk`` for everything else."""

    def __init__(
        self,
        bridge: EditorBridge,
        *,
        edit_mode: EditMode | Callable[[str], EditMode] = "editor",
        disk: FileSystem | None = None,
        settle_timeout: float = 5.0,
        poll_interval: float = 0.01,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Bind the file system to an editor.

        Args:
            bridge: the attached editor.
            edit_mode: the setting, or a callable given the path at every write (so one file
                system can serve workspace folders with different settings, and a
                configuration change applies at once).
            disk: the file system for files the editor does not hold (the local disk by
                default).
            settle_timeout: how long the editor may take to report an applied edit back
                (``didChange``) before its result is considered unknown.
            poll_interval: how often a write waiting for that report looks again.
            clock: monotonic seconds (tests pass a fake one).
        """
        self.bridge = bridge
        self._edit_mode = edit_mode
        self.disk = disk if disk is not None else LocalFileSystem()
        self.settle_timeout = settle_timeout
        self.poll_interval = poll_interval
        self._clock = clock
        self.overlay = Overlay(ttl=settle_timeout, clock=clock)
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._late_checks: set[asyncio.Future[None]] = set()
        self._told: dict[str, float] = {}
        """When the user was last told about an edit of a file that landed wrong."""

    def edit_mode(self, path: str) -> EditMode:
        """The edit mode setting that applies to ``path`` now."""
        return self._edit_mode(path) if callable(self._edit_mode) else self._edit_mode

    async def read_bytes(self, path: str) -> bytes:
        """The buffer's text as UTF-8 when the editor holds the file, else the disk's bytes."""
        view = self._view(path)
        if view is None:
            return await self.disk.read_bytes(path)
        remember_read(view.uri, ReadSnapshot(view.text, view.version))
        return encode_utf8(view.text)

    async def read_text(self, path: str) -> str:
        """The buffer's text when the editor holds the file, else the disk's text."""
        view = self._view(path)
        if view is None:
            text = await self.disk.read_text(path)
            remember_read(path_to_uri(path), ReadSnapshot(text, None))
            return text
        remember_read(view.uri, ReadSnapshot(view.text, view.version))
        return view.text

    async def write_text(self, path: str, text: str, *, tool: str | None = None) -> None:
        """Write through the editor or to the disk, as the module docstring describes.

        ``tool`` names the writing tool for the change annotation; by default the name set by
        ``bridge.tool_scope`` is used.
        """
        async with self._locks[uri_key(path_to_uri(path))]:
            snapshot = _take_read(self._uri(path))
            label = annotation_label(tool or current_tool(), snapshot is not None)
            reason = self._disk_reason(path)
            if reason is not None:
                await self._write_disk(path, text, reason)
                return
            view = await self._settled_view(path)
            if view is not None:
                await self._edit(path, view, text, snapshot, label)
            elif self.bridge.create_files and not os.path.lexists(path):
                await self._create(path, text, label)
            else:
                await self.disk.write_text(path, text)

    async def exists(self, path: str) -> bool:
        """True for a file the editor holds, else the disk's answer."""
        return self._view(path) is not None or await self.disk.exists(path)

    async def stat(self, path: str) -> FileStat:
        """The disk's stat; for a file the editor holds, the size of its buffer text."""
        view = self._view(path)
        if view is None:
            return await self.disk.stat(path)
        size = len(encode_utf8(view.text))
        try:
            disk = await self.disk.stat(path)
        except FileNotFoundError:
            return FileStat(kind="file", size=size, mtime=time.time())
        return FileStat(kind=disk.kind, size=size, mtime=disk.mtime)

    async def access(self, path: str, *, write: bool = False) -> bool:
        """The disk's answer for a file on disk; True for one only the editor holds."""
        if os.path.lexists(path):
            return await self.disk.access(path, write=write)
        return self._view(path) is not None

    async def list_dir(self, path: str) -> list[str]:
        """The disk's listing."""
        return await self.disk.list_dir(path)

    async def mkdir(self, path: str) -> None:
        """On the disk."""
        await self.disk.mkdir(path)

    def _uri(self, path: str) -> str:
        document = self.bridge.open_document(path)
        return document.uri if document is not None else path_to_uri(path)

    def _view(self, path: str) -> _View | None:
        """The editor's side of ``path``: open buffer or pending text, else None."""
        document = self.bridge.open_document(path)
        uri = document.uri if document is not None else path_to_uri(path)
        disk = _disk_stamp(path) if self.overlay.is_pending(uri) else None
        pending = self.overlay.get(uri, document, disk)
        if pending is not None:
            return _View(uri, pending.text, pending.version, pending.created)
        if document is not None:
            return _View(document.uri, document.text, document.version)
        return None

    def _disk_reason(self, path: str) -> str | None:
        """Why writes to ``path`` go to the disk, or None when they go through the editor."""
        if self.edit_mode(path) == "disk":
            return DISK_MODE
        if not self.bridge.can_apply_edits:
            return NO_APPLY_EDIT
        return None

    async def _settled_view(self, path: str) -> _View | None:
        """The editor's side of ``path`` once the editor has reported its last applied edit."""
        document = self.bridge.open_document(path)
        uri = document.uri if document is not None else path_to_uri(path)
        pending = self.overlay.get(uri, document, _disk_stamp(path))
        if pending is not None and not pending.created:
            deadline = self._clock() + self.settle_timeout
            while document is not None and document.version == pending.version:
                if self._clock() >= deadline:
                    self.overlay.drop(uri)
                    raise ToolError(unconfirmed(path, self.settle_timeout))
                await asyncio.sleep(self.poll_interval)
                document = self.bridge.open_document(path)
            self.overlay.drop(uri)
        return self._view(path)

    async def _edit(
        self, path: str, view: _View, text: str, snapshot: ReadSnapshot | None, label: str
    ) -> None:
        """One versioned applyEdit turning the buffer's text into ``text``."""
        if snapshot is not None and snapshot.text != view.text:
            raise ToolError(changed_since_read(path))
        if text == view.text:
            return
        edits = tuple(text_edits(view.text, text, self.bridge.position_encoding))
        version = view.version if self.bridge.document_changes else None
        watch = None if view.created else self.bridge.watch_text(view.uri, view.version, text)
        try:
            await self._apply(path, (TextChange(view.uri, version, edits),), label)
        except BaseException:
            if watch is not None:
                watch.close()
            raise
        if view.created:
            self.overlay.record_create(view.uri, text, _disk_stamp(path))
            return
        self.overlay.record_edit(view.uri, view.version, text)
        if watch is not None:
            await self._verify(path, view, text, watch)

    async def _verify(self, path: str, view: _View, text: str, watch: TextWatch) -> None:
        """Wait for the editor's report of an applied edit and check it produced the text.

        The editor said ``applied: true``; the text it then sends must have been, at some point
        of its changes, exactly the text the edit was computed to give. Otherwise the edit
        was applied to other text (a client that applies edits at stale positions): unless the
        edit still sits intact in the reported text (the other change was elsewhere,
        ``edit_intact``), the model is told it failed and the user that an undo restores the
        file. No report within
        ``settle_timeout``: the edit is trusted as before, and a late report is still checked.
        """
        deadline = self._clock() + self.settle_timeout
        verdict = watch.verdict()
        while verdict is None and self._clock() < deadline:
            await asyncio.sleep(self.poll_interval)
            verdict = watch.verdict()
        if verdict is None:
            self.overlay.record_edit(view.uri, view.version, text)  # trusted from now on
            task = asyncio.ensure_future(self._late_verdict(path, watch, view.text, text))
            self._late_checks.add(task)
            task.add_done_callback(self._late_checks.discard)
            return
        watch.close()
        if not verdict and self._landed_anyway(path, view.text, text):
            return
        if not verdict:
            self.overlay.drop(view.uri)
            self._tell_user(path)
            raise ToolError(mismatch(path))

    def _tell_user(self, path: str, quiet: float = 10.0) -> None:
        """Tell the user an edit of ``path`` landed wrong, at most once per ``quiet`` seconds.

        Per file; each failed edit still reaches the model.
        """
        now = self._clock()
        if now - self._told.get(path, now - quiet) >= quiet:
            self._told[path] = now
            self.bridge.tell_user(user_mismatch(path))

    def _landed_anyway(self, path: str, base: str, expected: str) -> bool:
        """An edit applied to changed text that still landed exactly (the change was elsewhere).

        The editor's copy is read once its report is in; ``edit_intact`` decides.
        """
        document = self.bridge.open_document(path)
        return document is not None and edit_intact(base, expected, document.text)

    async def _late_verdict(self, path: str, watch: TextWatch, base: str, expected: str) -> None:
        """Keep checking an edit whose report came late; a mismatch still reaches the user."""
        try:
            deadline = self._clock() + 60.0
            verdict = watch.verdict()
            while verdict is None and self._clock() < deadline:
                await asyncio.sleep(max(self.poll_interval, 0.05))
                verdict = watch.verdict()
            if verdict is False and not self._landed_anyway(path, base, expected):
                self._tell_user(path)
        finally:
            watch.close()

    async def _create(self, path: str, text: str, label: str) -> None:
        """``CreateFile`` plus the content, in one applyEdit."""
        uri = path_to_uri(path)
        content = (TextChange(uri, None, (Edit(0, 0, 0, 0, text),)),) if text else ()
        await self._apply(path, (CreateFile(uri), *content), label)
        self.overlay.record_create(uri, text, _disk_stamp(path))

    async def _apply(
        self, path: str, operations: tuple[TextChange | CreateFile, ...], label: str
    ) -> None:
        annotation = label if self.bridge.change_annotations else None
        change = WorkspaceChange(operations=operations, label=label, annotation=annotation)
        outcome = await self.bridge.apply_edit(change)
        if not outcome.applied:
            raise ToolError(refused(path, outcome.reason))

    async def _write_disk(self, path: str, text: str, reason: str) -> None:
        """A disk write, refused when an open buffer differs from the disk (unsaved changes)."""
        view = self._view(path)
        if view is not None and not await self._disk_matches(path, view.text):
            raise ToolError(unsaved_changes(path, reason))
        await self.disk.write_text(path, text)

    async def _disk_matches(self, path: str, text: str) -> bool:
        try:
            on_disk = await self.disk.read_text(path)
        except FileNotFoundError:
            return text == ""
        return on_disk == text or on_disk.removeprefix("\ufeff") == text


def _disk_stamp(path: str) -> DiskStamp:
    try:
        result = os.stat(path)
    except OSError:
        return None
    return result.st_mtime_ns, result.st_size

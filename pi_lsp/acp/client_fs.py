"""The tools' file system through the ACP client: ``fs/read_text_file`` and ``fs/write_text_file``.

When the client offers them, reads return the editor's text (unsaved changes included) and
writes go to the editor (its undo history, its buffers); otherwise, and for everything the
protocol has no word for (stat, listing, images and other binary files), the local disk is used.
A write the client refuses fails the tool call with the client's reason; nothing is then written
to the disk behind its back. Each write remembers the text before and after, so the tool call can
show a whole-file diff.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp import RequestError

from pi_lsp.acp.tool_calls import path_of
from pi_lsp.tools import FileStat, LocalFileSystem, ToolError
from pi_lsp.tools.files import SNIFF_BYTES, detect_image_mime
from pi_lsp.tools.fs import encode_utf8

logger = logging.getLogger(__name__)


class FsClient(Protocol):
    """The two client methods used here (the SDK's ``AgentSideConnection`` has them)."""

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        """``fs/read_text_file``: the editor's text of ``path``."""

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        """``fs/write_text_file``: the editor writes ``content`` to ``path``."""


@dataclass
class ClientFileSystem:
    """``FileSystem`` for one session; see the module docstring."""

    client: FsClient
    session_id: str
    cwd: str
    """The session's working directory (relative tool paths are resolved against it)."""
    read_through_client: bool
    write_through_client: bool
    disk: LocalFileSystem = field(default_factory=LocalFileSystem)
    changes: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    """Path → (text before, text after) of the last write to it (taken by :meth:`diff_for`)."""
    _last_read: dict[str, str] = field(default_factory=dict)

    def _disk_head(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as handle:
                return handle.read(SNIFF_BYTES)
        except FileNotFoundError:
            return None

    async def read_bytes(self, path: str) -> bytes:
        """The editor's text as UTF-8 (a binary file, and every file without delegation: disk)."""
        if not self.read_through_client:
            return await self.disk.read_bytes(path)
        head = self._disk_head(path)  # a directory or an unreadable file raises here
        if head is not None and (detect_image_mime(head) is not None or b"\0" in head):
            return await self.disk.read_bytes(path)
        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=path)
        except RequestError as exc:
            if head is None:
                raise FileNotFoundError(2, "No such file or directory", path) from None
            logger.warning("fs/read_text_file %s failed (%s): reading the disk", path, exc)
            return await self.disk.read_bytes(path)
        text = str(response.content)
        self._last_read[path] = text
        return encode_utf8(text)

    async def read_text(self, path: str) -> str:
        """The text, invalid bytes replaced."""
        return (await self.read_bytes(path)).decode("utf-8", "replace")

    async def _text_before(self, path: str) -> str | None:
        if path in self._last_read:
            return self._last_read.pop(path)
        try:
            return await self.read_text(path)
        except OSError:
            return None

    async def write_text(self, path: str, text: str) -> None:
        """Write through the editor when it offers it, else to the disk."""
        before = await self._text_before(path)
        if self.write_through_client:
            try:
                await self.client.write_text_file(
                    session_id=self.session_id, path=path, content=text
                )
            except RequestError as exc:
                raise ToolError(
                    f"The editor did not write {path}: {exc}. Nothing was written; "
                    "read the file again before retrying."
                ) from None
        else:
            await self.disk.write_text(path, text)
        self._last_read.pop(path, None)
        self.changes[path] = (before, text)

    def diff_for(
        self, name: str, call_id: str, args: dict[str, Any]
    ) -> tuple[str, str | None, str] | None:
        """``(path, before, after)`` of the file an ``edit``/``write`` call changed, if seen."""
        if name not in ("edit", "write"):
            return None
        path = path_of(args, self.cwd)
        if path is None or path not in self.changes:
            return None
        before, after = self.changes.pop(path)
        return path, before, after

    async def exists(self, path: str) -> bool:
        """On the disk."""
        return await self.disk.exists(path)

    async def stat(self, path: str) -> FileStat:
        """On the disk."""
        return await self.disk.stat(path)

    async def access(self, path: str, *, write: bool = False) -> bool:
        """On the disk."""
        return await self.disk.access(path, write=write)

    async def list_dir(self, path: str) -> list[str]:
        """On the disk."""
        return await self.disk.list_dir(path)

    async def mkdir(self, path: str) -> None:
        """On the disk (the client creates a file's parents itself, but the tools ask first)."""
        await self.disk.mkdir(path)

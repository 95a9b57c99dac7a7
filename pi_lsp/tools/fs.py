"""The file-system interface read, write, edit and ls go through, and its disk implementation.

Tools never open files themselves for reading or writing: an editor-backed implementation (a later
issue) reads unsaved buffers and writes through versioned ``workspace/applyEdit`` edits, so every
method is ``async``. Paths are absolute strings. Failures raise ``OSError`` subclasses
(``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError``) that the tools turn into pi's
messages; an implementation may raise ``ToolError`` to hand the model its own text (a version
conflict, say). grep, find and bash walk or run on the disk directly (see their modules).
"""

from __future__ import annotations

import os
import stat as stat_module
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pi_lsp.regular_files import MiB, read_regular_async
from pi_lsp.tools.checked_write import write_checked

FileKind = Literal["file", "directory", "other"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileStat:
    """What the tools need to know about a path (symbolic links followed)."""

    kind: FileKind
    size: int
    mtime: float
    """Seconds since the epoch."""


@runtime_checkable
class FileSystem(Protocol):
    """File access for the tools; every path is absolute."""

    async def read_bytes(self, path: str) -> bytes:
        """The file's bytes (an editor returns its buffer's text as UTF-8)."""
        ...

    async def read_text(self, path: str) -> str:
        """The file decoded as UTF-8, invalid bytes replaced (Node's ``toString("utf-8")``)."""
        ...

    async def write_text(self, path: str, text: str) -> None:
        """Create or overwrite the file with ``text`` in UTF-8; the parent must exist."""
        ...

    async def exists(self, path: str) -> bool:
        """Whether anything exists at ``path``."""
        ...

    async def stat(self, path: str) -> FileStat:
        """Kind, size and modification time; raises ``FileNotFoundError`` when missing."""
        ...

    async def is_file(self, path: str) -> bool:
        """Whether ``path`` is a regular file."""
        ...

    async def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory."""
        ...

    async def access(self, path: str, *, write: bool = False) -> bool:
        """Whether ``path`` exists and is readable (and writable when ``write``)."""
        ...

    async def list_dir(self, path: str) -> list[str]:
        """The names in a directory, unsorted, without ``.`` and ``..``."""
        ...

    async def mkdir(self, path: str) -> None:
        """Create a directory and its parents; no error when it exists."""
        ...


MAX_READ_BYTES = 32 * MiB
"""The largest file read and edit load (bash's ``head``/``sed`` read parts of bigger ones)."""


class LocalFileSystem:
    """``FileSystem`` on the local disk.

    Reads take only regular files up to ``MAX_READ_BYTES`` and run in a worker thread (a FIFO,
    ``/dev/stdin`` or ``/dev/zero`` is an error at once, never a frozen or bloated daemon; see
    ``regular_files``). Other calls are made directly on the event loop: they are short, and a
    thread hop would cost more than most of them.
    """

    def __init__(self, max_read_bytes: int = MAX_READ_BYTES) -> None:
        self.max_read_bytes = max_read_bytes

    async def read_bytes(self, path: str) -> bytes:
        """The file's bytes (regular files up to the limit only)."""
        return await read_regular_async(path, self.max_read_bytes)

    async def read_text(self, path: str) -> str:
        """The file decoded as UTF-8 with replacement characters."""
        return (await self.read_bytes(path)).decode("utf-8", "replace")

    async def write_text(self, path: str, text: str) -> None:
        """Write ``text`` as UTF-8 bytes (no newline translation, in place).

        Exactly where the permission check looked, or nowhere (``checked_write``).
        """
        write_checked(path, encode_utf8(text))

    async def exists(self, path: str) -> bool:
        """``os.path.lexists``: a dangling link exists too."""
        return os.path.lexists(path)

    async def stat(self, path: str) -> FileStat:
        """``os.stat`` reduced to ``FileStat``."""
        result = os.stat(path)
        kind: FileKind = "other"
        if stat_module.S_ISREG(result.st_mode):
            kind = "file"
        elif stat_module.S_ISDIR(result.st_mode):
            kind = "directory"
        return FileStat(kind=kind, size=result.st_size, mtime=result.st_mtime)

    async def is_file(self, path: str) -> bool:
        """``os.path.isfile``."""
        return os.path.isfile(path)

    async def is_dir(self, path: str) -> bool:
        """``os.path.isdir``."""
        return os.path.isdir(path)

    async def access(self, path: str, *, write: bool = False) -> bool:
        """``os.access`` with ``R_OK`` (and ``W_OK``)."""
        return os.access(path, os.R_OK | (os.W_OK if write else 0))

    async def list_dir(self, path: str) -> list[str]:
        """``os.listdir``."""
        return os.listdir(path)

    async def mkdir(self, path: str) -> None:
        """``os.makedirs(exist_ok=True)``."""
        os.makedirs(path, exist_ok=True)


def encode_utf8(text: str) -> bytes:
    """UTF-8 bytes as Node writes a string: a lone surrogate becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")

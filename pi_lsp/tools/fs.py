"""The file access read, write, edit and ls go through: the interface, the disk, Node's errors.

Tools never open files themselves for reading or writing: an editor-backed implementation
(``pi_lsp.edits``) reads unsaved buffers and writes through versioned ``workspace/applyEdit``
edits, so every method is ``async``. Paths are absolute strings. Failures raise ``OSError``
subclasses (``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError``) that
:class:`FileTool` turns into the text pi's tools report, Node's wording (``ENOENT: no such file
or directory, open '/p/a.txt'``); an implementation may raise ``ToolError`` to hand the model its
own text (a version conflict, say). grep, find and bash walk or run on the disk directly (see
their modules).

Disk writes land exactly where the permission check looked, or nowhere. The permission gate
resolves a write's path (links followed) before it runs, and may ask the user about that real
path. Between that moment and the write a link can be swapped (the user is reading the prompt),
so the real path is re-checked at write time without a gap: the parent directory is opened and
its descriptor's real path compared, then the file is opened relative to that descriptor without
following a final link, checked (a regular file, and not a second name of a file elsewhere unless
that was allowed) and only then truncated and written. Any difference refuses the write, and
nothing of the file changes. The gate hands its result to the write through
:func:`expect_write` (a context variable: it is set inside the tool call's task, so concurrent
calls never see each other's). Without one (the CLI, tests) the path is resolved at write time
and any link count is fine.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as stat_module
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pi_lsp.safety import (
    FileTooLargeError,
    MiB,
    NotRegularFileError,
    describe_mode,
    read_regular_async,
)
from pi_lsp.tools.base import P, Tool, ToolError

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
    ``pi_lsp.safety``). Other calls are made directly on the event loop: they are short, and a
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

        Exactly where the permission check looked, or nowhere (:func:`write_checked`).
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


@dataclass(frozen=True, slots=True)
class WriteCheck:
    """What the gate checked for one write."""

    path: str
    """The absolute path the tool writes (as resolved from its argument)."""
    real: str
    """Its real path at check time: the file that may be written."""
    links_allowed: bool
    """The file may have other names (hard links): it was asked about, or had none."""


_DIRECTORY_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC
"""``O_PATH`` where there is one: a folder the user may write into but not list still opens."""
_CHECKED: ContextVar[WriteCheck | None] = ContextVar("pi_lsp_write_check", default=None)


def expect_write(check: WriteCheck | None) -> None:
    """Record what the gate checked for the current tool call."""
    _CHECKED.set(check)


def changed(path: str, what: str) -> ToolError:
    """The refusal for a target that is not what was checked."""
    return ToolError(
        f"Refused to write {path}: {what} since the permission check. Nothing was written; "
        "check the path and try again."
    )


def write_checked(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in place (created if missing), as checked; see the module."""
    check = _CHECKED.get()
    if check is not None and check.path != path:
        raise changed(path, f"the checked path was {check.path}")
    real = os.path.realpath(path)
    if check is not None and real != check.real:
        raise changed(path, f"it now leads to {real}, not {check.real},")
    links_allowed = check.links_allowed if check is not None else True
    parent, name = os.path.split(real)
    directory = os.open(parent or os.sep, _DIRECTORY_FLAGS)
    try:
        if not _same_directory(directory, parent):
            raise changed(path, f"a folder on the way to {real} was replaced")
        fd = _open_file(name, directory, path, real)
        try:
            info = os.fstat(fd)
            if not stat_module.S_ISREG(info.st_mode):
                raise NotRegularFileError(real, info.st_mode)
            if info.st_nlink > 1 and not links_allowed:
                raise changed(
                    path, f"it became one of {info.st_nlink} names (hard links) of a file"
                )
            os.set_blocking(fd, True)
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    finally:
        os.close(directory)


def _open_file(name: str, directory: int, path: str, real: str) -> int:
    """The file opened for writing relative to its folder, a final link never followed."""
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        try:
            return os.open(name, flags, dir_fd=directory)
        except FileNotFoundError:
            return os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=directory)
    except FileExistsError:
        raise changed(path, f"{real} appeared") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise changed(path, f"{real} became a symbolic link") from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads: opening it would block
            raise NotRegularFileError(real, stat_module.S_IFIFO) from None
        raise


def _same_directory(fd: int, parent: str) -> bool:
    """Whether the open folder is ``parent`` itself (not something a link now points to)."""
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/self/fd/{fd}") == (parent or os.sep)
    try:
        return os.path.samestat(os.fstat(fd), os.stat(parent or os.sep))
    except OSError:
        return False


# libuv's wording where it differs from the C library's ``strerror`` (lower-cased).
_LIBUV_TEXT = {
    errno.EISDIR: "illegal operation on a directory",
    errno.EEXIST: "file already exists",
    errno.ELOOP: "too many symbolic links encountered",
}


def node_error_message(exc: OSError, syscall: str, path: str | None = None) -> str:
    """``CODE: description, syscall 'path'`` as Node formats a failed ``fs`` call."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    text = _LIBUV_TEXT.get(exc.errno or 0)
    if text is None:
        text = os.strerror(exc.errno or errno.EIO)
        text = text[:1].lower() + text[1:]
    location = f"{syscall} '{path}'" if path is not None else syscall
    return f"{code}: {text}, {location}"


def file_error_message(exc: OSError, syscall: str, path: str, verb: str = "read") -> str:
    """The tool text for a failed file read.

    A clear sentence for a non-regular or too-large file (see ``pi_lsp.safety``), else Node's
    wording.
    """
    if isinstance(exc, NotRegularFileError):
        return f"Cannot {verb} {path}: it is {describe_mode(exc.mode)}, not a regular file."
    if isinstance(exc, FileTooLargeError):
        return (
            f"Cannot read {path}: it is larger than {_mib(exc.limit)} "
            f"({_mib(exc.size)} or more). Use bash (head, tail, sed -n, grep) to read parts of it."
        )
    return node_error_message(exc, syscall, path)


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}MB"


class FileTool(Tool[P]):
    """A tool bound to a working directory and a file system (read, write, edit, ls).

    They see the editor's buffers when an editor is attached (D6), so they go through the
    session's file system instead of ``open``.
    """

    def __init__(self, cwd: str, fs: FileSystem) -> None:
        super().__init__(cwd)
        self.fs = fs
        """Where files are read and written (the disk, or the editor's buffers)."""

    @staticmethod
    @contextlib.contextmanager
    def os_errors(syscall: str, path: str, verb: str = "read", prefix: str = "") -> Iterator[None]:
        """Turn an ``OSError`` raised inside into the ``ToolError`` for ``syscall`` on ``path``.

        Node's wording, or a clear sentence for a file that is not regular or too large to
        ``verb`` (:func:`file_error_message`), after ``prefix``.
        """
        try:
            yield
        except OSError as exc:
            raise ToolError(prefix + file_error_message(exc, syscall, path, verb)) from None

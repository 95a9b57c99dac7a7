"""Appending to a session file safely: one writer at a time, nothing lost (decision D2).

Every append takes an exclusive ``flock`` on the file, checks that the header bytes are still
the ones this process read or wrote (another program editing the header in place would leave a
file that no longer loads), first reads whatever another process appended since the last look
(the caller indexes it), starts on a fresh line if the file ends in a torn line, then writes the
new lines with one ``O_APPEND`` write. A write cut short (a full disk) is undone, so a retry
never leaves a torn line or a duplicate behind. A new file is created with ``O_EXCL`` (pi's
``"wx"``), so two writers never both write a header. Rewrites (migrations) keep a complete
backup copy (or none) and replace the file atomically. This module knows bytes, not entries.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pi_lsp.session.records import SessionFileError

ExternalHandler = Callable[[bytes, int], None]
"""Called with bytes another process appended and the file offset they start at."""


class FileReplacedError(SessionFileError):
    """The path now names a different file (another program rewrote or removed it)."""


class HeaderChangedError(SessionFileError):
    """Another program changed the session header in place; nothing more is written."""


class SessionWriter:
    """Owns appends to one session file."""

    def __init__(self, path: Path, *, size: int, needs_newline: bool) -> None:
        self.path = path
        self.size = size
        """Bytes of the file this process has seen (read or written)."""
        self.needs_newline = needs_newline
        self.prefix = b""
        """The file's bytes up to the end of its header line, checked before every write."""
        self._fd: int | None = None
        self._identity: tuple[int, int] | None = None
        self.fsync = False
        """Also fsync after each append (off by default: a killed process loses nothing
        without it, since the data is in the page cache)."""

    def close(self) -> None:
        """Release the file descriptor."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _descriptor(self) -> int:
        fd = self._fd
        if fd is not None:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                raise FileReplacedError(self.path, 0, "session file was removed") from None
            if (st.st_dev, st.st_ino) != self._identity:
                raise FileReplacedError(
                    self.path, 0, "session file was replaced by another program"
                )
            return fd
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # an empty file that was opened, or another writer was first
            fd = os.open(self.path, flags)
        st = os.fstat(fd)
        self._fd, self._identity = fd, (st.st_dev, st.st_ino)
        return fd

    @contextmanager
    def locked(self, on_external: ExternalHandler) -> Iterator[int]:
        """Hold the exclusive lock with every foreign append already handed to ``on_external``.

        Raises:
            HeaderChangedError: the header bytes are not the ones read or written before.
        """
        fd = self._descriptor()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self._check_header(fd)
            self._catch_up(fd, on_external)
            yield fd
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _check_header(self, fd: int) -> None:
        prefix = self.prefix
        if prefix and os.pread(fd, len(prefix), 0) != prefix:
            raise HeaderChangedError(
                self.path,
                1,
                "the session header was changed by another program since it was read; "
                "nothing more is written to this file (reopen it to go on)",
            )

    def catch_up(self, on_external: ExternalHandler) -> None:
        """Hand over what other processes appended, under a shared lock (no writing)."""
        fd = self._descriptor()
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            self._catch_up(fd, on_external)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _catch_up(self, fd: int, on_external: ExternalHandler) -> None:
        size = os.fstat(fd).st_size
        if size < self.size:
            raise FileReplacedError(
                self.path, 0, "session file shrank: rewritten by another program"
            )
        if size > self.size:
            data = os.pread(fd, size - self.size, self.size)
            start = self.size
            self.size = size
            self.needs_newline = not data.endswith(b"\n")
            on_external(data, start)

    def write(self, fd: int, payload: bytes) -> None:
        """Append complete newline-terminated lines; call inside :meth:`locked`.

        A write that fails part-way (a full disk) is cut back off before the error is raised.
        """
        if self.needs_newline:
            payload = b"\n" + payload
        try:
            self._write_all(fd, payload)
        except OSError:
            self._undo(fd, len(payload))
            raise
        self.size += len(payload)
        self.needs_newline = False
        if self.fsync:
            os.fsync(fd)

    def append(self, payload: bytes, on_external: ExternalHandler) -> None:
        """Take the lock, catch up with foreign appends, append ``payload``."""
        with self.locked(on_external) as fd:
            self.write(fd, payload)

    def _undo(self, fd: int, length: int) -> None:
        """Remove the part of a failed write that reached the file (we hold the lock)."""
        with contextlib.suppress(OSError):
            size = os.fstat(fd).st_size
            if self.size < size <= self.size + length:
                os.ftruncate(fd, self.size)
            elif size > self.size:  # a writer without a lock appended meanwhile: keep its bytes
                self.needs_newline = True

    @staticmethod
    def _write_all(fd: int, payload: bytes) -> None:
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    def rewrite(self, content: bytes, backup_suffix: str) -> Path:
        """Replace the file by ``content`` atomically after copying it to a backup; returns it."""
        backup = _free_name(self.path.with_name(self.path.name + backup_suffix))
        fd = self._descriptor()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self._check_header(fd)
            if os.fstat(fd).st_size != self.size:
                raise FileReplacedError(self.path, 0, "session file changed while migrating")
            copy_complete(self.path, backup)
            atomic_write(self.path, content)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            self.close()
        self.size = len(content)
        self.needs_newline = False
        self.prefix = content[: content.find(b"\n") + 1]
        return backup


def atomic_write(path: Path, content: bytes) -> None:
    """Write a temporary file beside ``path``, fsync it, rename it over ``path``, fsync the dir.

    On any failure the temporary file is removed and ``path`` is as it was.
    """
    _replace_with(path, lambda fd, _tmp: SessionWriter._write_all(fd, content))


def copy_complete(source: Path, target: Path) -> None:
    """Copy ``source`` to a new ``target`` that is complete or absent (temp, fsync, rename)."""

    def copy(fd: int, tmp: Path) -> None:
        with source.open("rb") as src, open(fd, "wb", closefd=False) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        shutil.copystat(source, tmp)  # times and mode, as the copy2 it replaces

    _replace_with(target, copy)


def _replace_with(path: Path, fill: Callable[[int, Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        try:
            fill(fd, tmp)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def create_exclusive(path: Path, content: bytes) -> None:
    """Write a new file that must not exist yet (new sessions, forks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        SessionWriter._write_all(fd, content)
    finally:
        os.close(fd)


def _free_name(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{n}")
        n += 1
    return candidate

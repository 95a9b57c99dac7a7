"""The file behind a session store: deferred creation, migration rewrite, locked appends (D2).

:class:`SessionFile` tracks which state the file is in. A new session's file is created with its
first user or assistant message, as pi 1.6.0 does (so an acknowledged prompt survives a crash
before the reply); an old-version file is rewritten as version 3 before the first append, with a
backup; the first write never adds a second header: if another process wrote the file first, its
header is adopted and our entries go after its lines. After :meth:`SessionFile.close` nothing is
written. The store decides what to write.

:class:`SessionWriter` does the bytes. Every append takes an exclusive ``flock`` on the file,
checks that the header bytes are still the ones this process read or wrote (another program
editing the header in place would leave a file that no longer loads), first reads whatever
another process appended since the last look (the caller indexes it), starts on a fresh line if
the file ends in a torn line, then writes the new lines with one ``O_APPEND`` write. A write cut
short (a full disk) is undone, so a retry never leaves a torn line or a duplicate behind. A new
file is created with ``O_EXCL`` (pi's ``"wx"``), so two writers never both write a header.
Rewrites (migrations) keep a complete backup copy (or none) and replace the file atomically.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pi_lsp.session.entries import SessionHeader
from pi_lsp.session.jsonl import Diagnostic, Record, SessionFileError
from pi_lsp.session.reader import LoadedFile, file_version, parse_appended, parse_session_bytes

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


class SessionClosedError(SessionFileError):
    """A write to a session that was closed (its lock may belong to someone else now)."""


class SessionFile:
    """Where a store's entries go on disk (nothing for an in-memory store)."""

    def __init__(self, path: Path | None, loaded: LoadedFile) -> None:
        self.path = path
        self.from_version = loaded.from_version
        self.next_line = loaded.lines + 1
        """Physical line number the next appended line will have."""
        self.on_disk = loaded.header is not None and path is not None
        """True once the header is in the file."""
        self.rewrite_pending = loaded.migrated and path is not None
        self.closed = False
        self.writer: SessionWriter | None = None
        if self.on_disk and path is not None:
            self.writer = SessionWriter(path, size=loaded.size, needs_newline=loaded.needs_newline)
            self.writer.prefix = loaded.prefix

    def ensure_migrated(self, content: Callable[[], bytes]) -> Diagnostic | None:
        """Rewrite an old-version file with ``content()`` (backup kept); a note when it did."""
        if self.writer is None or not self.rewrite_pending:
            return None
        self._check_open()
        backup = self.writer.rewrite(content(), f".v{self.from_version}.bak")
        self.rewrite_pending = False
        return Diagnostic(str(self.path), 0, f"migrated from v{self.from_version}; backup {backup}")

    def create(
        self, header: bytes, entries: list[bytes], on_external: ExternalHandler
    ) -> SessionHeader | None:
        """Write the header line and every entry line so far: the file now exists.

        Returns None, or the header of the file another process wrote here first: its entries
        were handed to ``on_external`` and ours appended after them (no second header).

        Raises:
            SessionFileError: the path holds something that is not a session file (untouched).
        """
        assert self.path is not None
        self._check_open()
        writer = SessionWriter(self.path, size=0, needs_newline=False)
        found: list[bytes] = []
        adopted: SessionHeader | None = None
        try:
            with writer.locked(lambda data, _start: found.append(data)) as fd:
                existing = b"".join(found)
                lead = writer.needs_newline  # what is there does not end with a newline
                if existing.strip():
                    adopted, writer.prefix = self._adopt(existing, on_external)
                    first = b""
                else:  # missing, empty or blank: ours is the only header
                    first = header
                    writer.prefix = existing + (b"\n" if lead else b"") + header
                writer.write(fd, first + b"".join(entries))
        except BaseException:
            writer.close()
            raise
        self.next_line = existing.count(b"\n") + lead + bool(first) + len(entries) + 1
        self.writer = writer
        self.on_disk = True
        return adopted

    def _adopt(self, existing: bytes, on_external: ExternalHandler) -> tuple[SessionHeader, bytes]:
        """The header and header bytes of a file another process wrote first.

        Its entries are handed to ``on_external``.
        """
        assert self.path is not None
        loaded = parse_session_bytes(existing, self.path)  # raises for a non-session file
        if loaded.header is None or file_version(loaded.header) < 3:
            raise SessionFileError(
                self.path, 0, "another program wrote this file meanwhile; reopen the session"
            )
        self.next_line = loaded.prefix.count(b"\n") + 1
        rest = existing[len(loaded.prefix) :]
        if rest:
            on_external(rest, len(loaded.prefix))
        return loaded.header, loaded.prefix

    def append(self, make: Callable[[], Record], on_external: ExternalHandler) -> Record:
        """Append the record ``make()`` builds once the file is locked and caught up."""
        assert self.writer is not None
        self._check_open()
        with self.writer.locked(on_external) as fd:
            record = make()
            self.writer.write(fd, record.raw + b"\n")
            record.line = self.next_line
            self.next_line += 1
        return record

    def parse_external(self, data: bytes) -> tuple[list[Record], list[Diagnostic]]:
        """Records and problems in bytes another process appended."""
        assert self.path is not None
        fresh, problems = parse_appended(data, self.path, self.next_line)
        self.next_line += data.count(b"\n")
        return fresh, problems

    def catch_up(self, on_external: ExternalHandler) -> None:
        """Hand what other processes appended to ``on_external`` (a shared lock, no writing)."""
        if self.writer is not None and not self.closed:
            self.writer.catch_up(on_external)

    def close(self) -> None:
        """Release the file descriptor; from now on every write raises."""
        self.closed = True
        if self.writer is not None:
            self.writer.close()

    def _check_open(self) -> None:
        if self.closed:
            raise SessionClosedError(self.path or "<memory>", 0, "the session was closed")

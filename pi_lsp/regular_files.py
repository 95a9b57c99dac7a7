"""Reading files that cannot freeze or bloat the daemon: regular files only, never past a limit.

``open()`` on a FIFO blocks until a writer appears (forever, for a FIFO nobody writes), and
``read()`` on ``/dev/zero``, ``/dev/stdin`` (the editor's own protocol stream) or a socket never
ends or steals bytes meant for someone else. :func:`read_regular` opens without blocking
(``O_NONBLOCK``), checks on the open descriptor that it is a regular file, and refuses one
larger than the limit before reading it; it also never reads more than the limit from a
"regular" file that keeps growing (``/proc`` files report size 0). The errors are ``OSError``
subclasses, so callers that already turn ``OSError`` into a message keep working.

Used by the tools (read, edit, grep, the .gitignore and context-file loaders) and, through
:func:`open_regular`, by the session reader, listing and discovery. Blocking: call it in a
worker thread for anything that may be large or slow (:func:`read_regular_async`).
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat

MiB = 1024 * 1024


class NotRegularFileError(OSError):
    """The path is a FIFO, device, socket or other non-regular file."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({describe_mode(mode)})", path)
        self.mode = mode


class FileTooLargeError(OSError):
    """The file is larger than the reader's limit."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"file too large ({size} bytes; limit {limit})", path)
        self.size = size
        self.limit = limit


def describe_mode(mode: int) -> str:
    """A word for a file type (for error messages)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the regular file at ``path`` (links followed); never blocks.

    Raises ``IsADirectoryError``, ``NotRegularFileError`` for a FIFO, device or socket, and the
    errors of ``open`` (``FileNotFoundError``, ``PermissionError``…). The descriptor is
    blocking again when returned; the caller closes it and reads it in bounded chunks.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(str(path), mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (links followed), at most ``limit`` of them.

    Raises ``NotRegularFileError`` for anything but a regular file, ``FileTooLargeError`` when
    it is (or grows) larger than ``limit``, ``IsADirectoryError``, ``FileNotFoundError`` and the
    other errors of ``open``. Never blocks on a FIFO or a device.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileTooLargeError(path, size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(max(size, 64 * 1024), limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLargeError(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


async def read_regular_async(path: str, limit: int) -> bytes:
    """:func:`read_regular` in a worker thread, so a big or slow file never blocks the loop."""
    return await asyncio.to_thread(read_regular, path, limit)

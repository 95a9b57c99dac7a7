"""Opening files that cannot freeze the daemon: regular files only, never blocking on open.

``open()`` on a FIFO blocks until a writer appears (forever, for a FIFO nobody writes), and
reading ``/dev/zero`` (or a link to it) never ends. :func:`open_regular` opens without blocking
(``O_NONBLOCK``), checks on the open descriptor that it is a regular file and hands back a
blocking descriptor; callers then read it in bounded chunks. The error is an ``OSError``, so
callers that already turn ``OSError`` into a message or a skip keep working.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotRegularError(OSError):
    """The path is a FIFO, device, socket or directory, not a regular file."""

    def __init__(self, path: str, mode: int) -> None:
        self.kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        """What the path is, for messages (``a directory`` or ``not a regular file``)."""
        super().__init__(errno.EINVAL, self.kind, path)


def open_regular(path: str | Path) -> int:
    """A read-only descriptor of the regular file at ``path`` (links followed); never blocks.

    Raises :class:`NotRegularError` for anything but a regular file, and the errors of
    ``open`` (``FileNotFoundError``, ``PermissionError``…). The caller closes the descriptor.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularError(str(path), mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_prefix(fd: int, limit: int, chunk: int = 1 << 20) -> bytes:
    """Up to ``limit`` bytes from the descriptor's current position (fewer at end of file)."""
    parts: list[bytes] = []
    total = 0
    while total < limit:
        data = os.read(fd, min(chunk, limit - total))
        if not data:
            break
        parts.append(data)
        total += len(data)
    return b"".join(parts)

"""The few file-system calls the context loader makes, behind a protocol.

Every stat and read of the loader goes through a :class:`ContextFs`, so the per-cwd cache can
record what a load looked at and serve unchanged files without reading them again, and tests
can count reads. Path strings are used throughout (no ``Path`` objects) because the loader's
paths are lexical and compared as strings.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Protocol

from pi_lsp.regular_files import MiB, read_regular

MAX_CONTEXT_FILE_BYTES = 8 * MiB
"""A context file (AGENTS.md, SYSTEM.md, git metadata) larger than this is not read."""


class ContextFs(Protocol):
    """Stat and read, raising :class:`OSError` as the ``os`` functions do."""

    def stat(self, path: str) -> os.stat_result:
        """``os.stat``: follows symbolic links."""
        ...

    def lstat(self, path: str) -> os.stat_result:
        """``os.lstat``: does not follow a final symbolic link."""
        ...

    def read_bytes(self, path: str) -> bytes:
        """The whole content of a file."""
        ...


class LocalFs:
    """The real file system."""

    def stat(self, path: str) -> os.stat_result:
        """``os.stat``: follows symbolic links."""
        return os.stat(path)

    def lstat(self, path: str) -> os.stat_result:
        """``os.lstat``: does not follow a final symbolic link."""
        return os.lstat(path)

    def read_bytes(self, path: str) -> bytes:
        """The whole content of a regular file (a FIFO or device is an error, never a hang)."""
        return read_regular(path, MAX_CONTEXT_FILE_BYTES)


def stat_or_none(fs: ContextFs, path: str) -> os.stat_result | None:
    """``fs.stat(path)``, or None when nothing usable is there (missing, loop, no access)."""
    try:
        return fs.stat(path)
    except (OSError, ValueError):
        return None


def is_regular_file(fs: ContextFs, path: str) -> bool:
    """Whether ``path`` (symbolic links followed) is a regular file."""
    found = stat_or_none(fs, path)
    return found is not None and stat.S_ISREG(found.st_mode)


def describe_os_error(exc: OSError) -> str:
    """A short reason for an :class:`OSError`, naming symbolic-link loops plainly."""
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    return exc.strerror or str(exc)

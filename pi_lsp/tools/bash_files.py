"""The full-output files of one session's bash commands: capped, bounded in total, removed.

pi writes a command's whole output to ``<tmp>/pi-bash-<hex>.log`` once it passes 50 KB and
never removes it; a few noisy commands left hundreds of megabytes. Here each file keeps at most
``file_limit`` bytes (the start of the output: the tail is in the tool result), the files of one
session together at most ``total_limit`` (the oldest finished ones are removed first), and all
of them are removed when the session closes (:meth:`remove_all`) or the daemon exits.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import weakref
from collections import OrderedDict

from pi_lsp.regular_files import MiB

FILE_LIMIT = 16 * MiB
"""Bytes of one command's output kept on disk."""
TOTAL_LIMIT = 64 * MiB
"""Bytes of full-output files one session keeps."""

_LIVE: weakref.WeakSet[OutputFiles] = weakref.WeakSet()


class OutputFiles:
    """The full-output files of one session, oldest first, with their sizes."""

    def __init__(self, file_limit: int = FILE_LIMIT, total_limit: int = TOTAL_LIMIT) -> None:
        self.file_limit = file_limit
        self.total_limit = total_limit
        self._sizes: OrderedDict[str, int] = OrderedDict()
        self._open: set[str] = set()
        _LIVE.add(self)

    def opened(self, path: str) -> None:
        """A command started writing ``path``."""
        self._sizes[path] = 0
        self._open.add(path)

    def grew(self, path: str, size: int) -> None:
        """``path`` now holds ``size`` bytes; older finished files go if over the total."""
        self._sizes[path] = size
        excess = sum(self._sizes.values()) - self.total_limit
        for old in [p for p in self._sizes if p not in self._open]:
            if excess <= 0:
                break
            excess -= self._sizes.pop(old)
            _remove(old)

    def closed(self, path: str) -> None:
        """The command writing ``path`` ended (the file stays for the model to read)."""
        self._open.discard(path)

    @property
    def paths(self) -> list[str]:
        """The files kept, oldest first."""
        return list(self._sizes)

    def remove_all(self) -> None:
        """Remove every file (the session closed)."""
        for path in list(self._sizes):
            _remove(path)
        self._sizes.clear()


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@atexit.register
def _remove_at_exit() -> None:
    for files in list(_LIVE):
        files.remove_all()

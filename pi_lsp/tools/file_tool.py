"""The base of the tools that work on files through a :class:`~pi_lsp.tools.fs.FileSystem`.

``read``, ``write``, ``edit`` and ``ls`` see the editor's buffers when an editor is attached (D6),
so they go through the session's file system instead of ``open``. This class holds that file
system and maps an ``OSError`` to the
``ToolError`` carrying Node's message (what pi's tools report, e.g. ``ENOENT: no such file or
directory, open '/p/a.txt'``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from pi_lsp.tools.base import Tool
from pi_lsp.tools.errors import ToolError, file_error_message
from pi_lsp.tools.fs import FileSystem
from pi_lsp.tools.params import P


class FileTool(Tool[P]):
    """A tool bound to a working directory and a file system."""

    def __init__(self, cwd: str, fs: FileSystem) -> None:
        super().__init__(cwd)
        self.fs = fs
        """Where files are read and written (the disk, or the editor's buffers)."""

    @staticmethod
    @contextlib.contextmanager
    def os_errors(syscall: str, path: str, verb: str = "read") -> Iterator[None]:
        """Turn an ``OSError`` raised inside into the ``ToolError`` for ``syscall`` on ``path``.

        Node's wording, or a clear sentence for a file that is not regular or too large to
        ``verb`` (:func:`~pi_lsp.tools.errors.file_error_message`).
        """
        try:
            yield
        except OSError as exc:
            raise ToolError(file_error_message(exc, syscall, path, verb)) from None

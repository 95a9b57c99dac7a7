"""Collects a command's output for bash: a rolling tail in memory, the rest in a temp file.

Memory holds the most recent 100 KB or more (twice the byte limit, so a tail cut always has
enough); once the output passes 50 KB everything is also written to
``<tmp>/pi-bash-<16 hex>.log``, the file pi names in its notices. Line and byte totals are
counted over the whole output, so ``[Showing lines A-B of T ...]`` numbers are exact even after
the start left memory (pi counts only what its buffer still holds). The file is capped and
removed with its session (``bash_files``).
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections import deque
from dataclasses import replace
from typing import BinaryIO

from pi_lsp.tools.bash_files import OutputFiles
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, truncate_tail

WINDOW_BYTES = DEFAULT_MAX_BYTES * 2


class OutputCollector:
    """The output of one command."""

    def __init__(self, temp_dir: str | None = None, files: OutputFiles | None = None) -> None:
        self._temp_dir = temp_dir
        self._files = files if files is not None else OutputFiles()
        self._written = 0
        self.file_cut = False
        """The full-output file stopped at the files' ``file_limit`` (its start is kept)."""
        self._chunks: deque[bytes] = deque()
        self._window = 0
        self.total_bytes = 0
        """Bytes received so far."""
        self._newlines = 0
        self._ends_with_newline = True
        self._line_bytes = 0
        self._last_line_bytes = 0
        self._file: BinaryIO | None = None
        self.full_output_path: str | None = None
        """The temp file holding all output, once there is more than 50 KB."""

    def append(self, data: bytes) -> None:
        """Take one chunk of output."""
        if not data:
            return
        self.total_bytes += len(data)
        self._count_lines(data)
        self._chunks.append(data)
        self._window += len(data)
        while len(self._chunks) > 1 and self._window - len(self._chunks[0]) >= WINDOW_BYTES:
            self._window -= len(self._chunks.popleft())
        if self._file is None and self.total_bytes > DEFAULT_MAX_BYTES:
            self._open_file()
        elif self._file is not None:
            self._write(data)

    def _write(self, data: bytes) -> None:
        """Append to the full-output file, up to its limit."""
        assert self._file is not None and self.full_output_path is not None
        room = self._files.file_limit - self._written
        if room <= 0:
            self.file_cut = True
            return
        if len(data) > room:
            data, self.file_cut = data[:room], True
        self._file.write(data)
        self._written += len(data)
        self._files.grew(self.full_output_path, self._written)

    def _count_lines(self, data: bytes) -> None:
        newlines = data.count(b"\n")
        self._newlines += newlines
        self._ends_with_newline = data.endswith(b"\n")
        if newlines:
            tail = len(data) - data.rfind(b"\n") - 1
            if newlines == 1:
                self._last_line_bytes = self._line_bytes + data.find(b"\n")
            else:
                previous = data.rfind(b"\n", 0, len(data) - tail - 1)
                self._last_line_bytes = len(data) - tail - 1 - previous - 1
            self._line_bytes = tail
        else:
            self._line_bytes += len(data)

    def _open_file(self) -> None:
        directory = self._temp_dir or tempfile.gettempdir()
        path = os.path.join(directory, f"pi-bash-{secrets.token_hex(8)}.log")
        self._file = open(path, "wb")  # noqa: SIM115 - open until the command ends
        self.full_output_path = path
        self._files.opened(path)
        for chunk in self._chunks:
            self._write(chunk)

    @property
    def file_limit(self) -> int:
        """Bytes the full-output file keeps at most."""
        return self._files.file_limit

    @property
    def total_lines(self) -> int:
        """Lines as pi counts them (a final newline does not start another line)."""
        if not self.total_bytes:
            return 0
        return self._newlines + (0 if self._ends_with_newline else 1)

    @property
    def last_line_bytes(self) -> int:
        """Size of the last counted line."""
        return self._line_bytes if not self._ends_with_newline else self._last_line_bytes

    def snapshot(self) -> TruncationResult:
        """The tail cut of the output so far, with whole-output totals."""
        text = b"".join(self._chunks).decode("utf-8", "replace")
        cut = truncate_tail(text)
        return replace(cut, total_lines=self.total_lines, total_bytes=self.total_bytes)

    def close(self) -> None:
        """Flush and close the full-output file (it stays on disk for the model to read)."""
        if self._file is not None:
            self._file.close()
            self._files.closed(str(self.full_output_path))

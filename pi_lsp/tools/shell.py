"""How bash runs a command: the shell, its PATH, killing its process tree, collecting output.

The shell is the ``shellPath`` setting when set (an error when it does not exist), else
``/bin/bash``, else ``bash`` on PATH, else ``sh`` (pi's ``getShellConfig`` plus a PATH lookup).
pi prepends ``<agentDir>/bin`` to PATH. Commands run in their own session, so the process group
id is the shell's pid and one ``killpg`` reaches every descendant that did not leave the group.

A command's output is collected as a rolling tail in memory (the most recent 100 KB or more:
twice the byte limit, so a tail cut always has enough); once the output passes 50 KB everything
is also written to ``<tmp>/pi-bash-<16 hex>.log``, the file pi names in its notices. Line and
byte totals are counted over the whole output, so ``[Showing lines A-B of T ...]`` numbers are
exact even after the start left memory (pi counts only what its buffer still holds).

pi never removes those full-output files; a few noisy commands left hundreds of megabytes. Here
each file keeps at most ``file_limit`` bytes (the start of the output: the tail is in the tool
result), the files of one session together at most ``total_limit`` (the oldest finished ones
are removed first), and all of them are removed when the session closes
(:meth:`OutputFiles.remove_all`) or the daemon exits.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from typing import BinaryIO

from pi_lsp.safety import MiB
from pi_lsp.tools.base import ToolError
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, truncate_tail

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


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellSettings:
    """The settings bash uses (pi's ``shellPath`` and ``shellCommandPrefix``)."""

    shell_path: str | None = None
    """A shell to use instead of the default."""
    command_prefix: str | None = None
    """Prepended to every command on its own line."""
    agent_dir: str | None = None
    """pi's agent directory; its ``bin`` folder is put first on PATH. None leaves PATH alone."""
    temp_dir: str | None = None
    """Where ``pi-bash-*.log`` full-output files go; None for the system temp directory."""
    full_output_limit: int = FILE_LIMIT
    """Bytes one command's full-output file keeps (its start)."""
    full_output_total: int = TOTAL_LIMIT
    """Bytes of full-output files a session keeps (the oldest go first)."""


def resolve_shell(settings: ShellSettings) -> str:
    """The shell executable for ``<shell> -c <command>``."""
    if settings.shell_path:
        if os.path.exists(settings.shell_path):
            return settings.shell_path
        where = os.path.join(settings.agent_dir or "~/.pi/agent", "settings.json")
        raise ToolError(
            f"Custom shell path not found: {settings.shell_path}\n"
            f"Please update shellPath in {where}"
        )
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


def shell_env(settings: ShellSettings) -> dict[str, str]:
    """This process's environment with ``<agentDir>/bin`` first on PATH (once)."""
    env = dict(os.environ)
    if settings.agent_dir is None:
        return env
    bin_dir = os.path.join(settings.agent_dir, "bin")
    current = env.get("PATH", "")
    if bin_dir not in current.split(os.pathsep):
        env["PATH"] = os.pathsep.join(part for part in (bin_dir, current) if part)
    return env


def kill_process_tree(pid: int) -> None:
    """SIGKILL the process group led by ``pid``, or the process alone if that fails."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


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

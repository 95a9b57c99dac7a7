"""The few file-system calls the prompt loaders make, and which file of a directory counts.

Every stat and read of the loaders goes through a :class:`ContextFs`, so the per-cwd cache can
record what a load looked at and serve unchanged files without reading them again, and tests
can count reads. Path strings are used throughout (no ``Path`` objects) because the loader's
paths are lexical and compared as strings.

Per directory the context-file candidates are tried in a fixed order and only regular files
count (symbolic links are followed), so a directory named ``AGENTS.md`` is passed over.
Problems with a candidate (a dangling link, a link loop, no access) become warnings naming the
path; they never stop the search (decision D3). Candidates are only stat-ed here; reading is the
loader's job.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import Protocol

from pi_lsp.prompt.models import ContextWarning
from pi_lsp.safety import MiB, read_regular

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


def describe_os_error(exc: OSError) -> str:
    """A short reason for an :class:`OSError`, naming symbolic-link loops plainly."""
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    return exc.strerror or str(exc)


CANDIDATE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
"""Per-directory order of context file names (pi v0.84.1); the first usable one wins."""

_BOM = "\ufeff"


def candidate_files(
    fs: ContextFs, directory: str, warnings: list[ContextWarning]
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield ``(path, stat)`` for each regular-file candidate of ``directory``, in order.

    Lazy on purpose: the caller stops at the first file it can use, so later names are never
    probed and produce no warnings.
    """
    for name in CANDIDATE_NAMES:
        path = os.path.join(directory, name)
        found = regular_file_stat(fs, path, warnings)
        if found is not None:
            yield path, found


def first_candidate_name(fs: ContextFs, directory: str) -> str | None:
    """The name of the first regular-file candidate of ``directory``, without reading it."""
    for path, _ in candidate_files(fs, directory, []):
        return os.path.basename(path)
    return None


def decode_text(data: bytes, path: str) -> tuple[str, ContextWarning | None]:
    """UTF-8 text without a leading BOM; invalid bytes become U+FFFD and give a warning."""
    warning = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        warning = ContextWarning(
            path=path,
            message=f"not valid UTF-8 (first bad byte at offset {exc.start}); "
            "undecodable bytes were replaced by U+FFFD",
        )
    return text.removeprefix(_BOM), warning


def regular_file_stat(
    fs: ContextFs, path: str, warnings: list[ContextWarning]
) -> os.stat_result | None:
    """The stat of ``path`` if it is (or links to) a regular file; else None.

    A missing path or one of another type is passed over silently; a dangling link, a link
    loop or a path that cannot be inspected also adds a warning naming it.
    """
    try:
        found = fs.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        warnings.append(ContextWarning(path=path, message=f"skipped: {describe_os_error(exc)}"))
        return None
    if stat.S_ISLNK(found.st_mode):
        try:
            found = fs.stat(path)
        except FileNotFoundError:
            message = "skipped: dangling symbolic link (its target does not exist)"
            warnings.append(ContextWarning(path=path, message=message))
            return None
        except OSError as exc:
            message = f"skipped: {describe_os_error(exc)}"
            warnings.append(ContextWarning(path=path, message=message))
            return None
    return found if stat.S_ISREG(found.st_mode) else None

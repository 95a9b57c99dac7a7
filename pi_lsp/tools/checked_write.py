"""Disk writes that land exactly where the permission check looked, or nowhere.

The permission gate resolves a write's path (links followed) before it runs, and may ask the
user about that real path. Between that moment and the write a link can be swapped (the user
is reading the prompt), so the real path is re-checked at write time without a gap: the parent
directory is opened and its descriptor's real path compared, then the file is opened relative
to that descriptor without following a final link, checked (a regular file, and not a second
name of a file elsewhere unless that was allowed) and only then truncated and written. Any
difference refuses the write, and nothing of the file changes.

The gate hands its result to the write through :func:`expect_write` (a context variable: it is
set inside the tool call's task, so concurrent calls never see each other's). Without one (the
CLI, tests) the path is resolved at write time and any link count is fine.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from contextvars import ContextVar
from dataclasses import dataclass

from pi_lsp.regular_files import NotRegularFileError
from pi_lsp.tools.errors import ToolError


@dataclass(frozen=True, slots=True)
class WriteCheck:
    """What the gate checked for one write."""

    path: str
    """The absolute path the tool writes (as resolved from its argument)."""
    real: str
    """Its real path at check time: the file that may be written."""
    links_allowed: bool
    """The file may have other names (hard links): it was asked about, or had none."""


_DIRECTORY_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC
"""``O_PATH`` where there is one: a folder the user may write into but not list still opens."""
_CHECKED: ContextVar[WriteCheck | None] = ContextVar("pi_lsp_write_check", default=None)


def expect_write(check: WriteCheck | None) -> None:
    """Record what the gate checked for the current tool call."""
    _CHECKED.set(check)


def changed(path: str, what: str) -> ToolError:
    """The refusal for a target that is not what was checked."""
    return ToolError(
        f"Refused to write {path}: {what} since the permission check. Nothing was written; "
        "check the path and try again."
    )


def write_checked(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in place (created if missing), as checked; see the module."""
    check = _CHECKED.get()
    if check is not None and check.path != path:
        raise changed(path, f"the checked path was {check.path}")
    real = os.path.realpath(path)
    if check is not None and real != check.real:
        raise changed(path, f"it now leads to {real}, not {check.real},")
    links_allowed = check.links_allowed if check is not None else True
    parent, name = os.path.split(real)
    directory = os.open(parent or os.sep, _DIRECTORY_FLAGS)
    try:
        if not _same_directory(directory, parent):
            raise changed(path, f"a folder on the way to {real} was replaced")
        fd = _open_file(name, directory, path, real)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise NotRegularFileError(real, info.st_mode)
            if info.st_nlink > 1 and not links_allowed:
                raise changed(
                    path, f"it became one of {info.st_nlink} names (hard links) of a file"
                )
            os.set_blocking(fd, True)
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    finally:
        os.close(directory)


def _open_file(name: str, directory: int, path: str, real: str) -> int:
    """The file opened for writing relative to its folder, a final link never followed."""
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        try:
            return os.open(name, flags, dir_fd=directory)
        except FileNotFoundError:
            return os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=directory)
    except FileExistsError:
        raise changed(path, f"{real} appeared") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise changed(path, f"{real} became a symbolic link") from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads: opening it would block
            raise NotRegularFileError(real, stat.S_IFIFO) from None
        raise


def _same_directory(fd: int, parent: str) -> bool:
    """Whether the open folder is ``parent`` itself (not something a link now points to)."""
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/self/fd/{fd}") == (parent or os.sep)
    try:
        return os.path.samestat(os.fstat(fd), os.stat(parent or os.sep))
    except OSError:
        return False

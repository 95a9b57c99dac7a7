"""What the prompt loaders see on disk: the file-system seam, which file of a directory counts.

Every stat and read of the loaders goes through a :class:`ContextFs`, so the per-cwd cache can
record what a load looked at and serve unchanged files without reading them again, and tests
can count reads. Path strings are used throughout (no ``Path`` objects) because the loader's
paths are lexical and compared as strings.

Per directory the context-file candidates are tried in a fixed order and only regular files
count (symbolic links are followed), so a directory named ``AGENTS.md`` is passed over.
Problems with a candidate (a dangling link, a link loop, no access) become
:class:`ContextWarning` values naming the path; they never stop the search (decision D3).
Candidates are only stat-ed here; reading is the loader's job (:mod:`pi_lsp.prompt.files`).

Nested linked git worktrees: a worktree created inside its main checkout
(``repo/.worktrees/feature``) has the main checkout's root as an ancestor, so a plain ancestor
walk would load the repository's ``AGENTS.md`` twice: once from the worktree root, once from the
main root. :func:`shadowed_context_file` names the main checkout's copy to skip, by the rules of
the spec's Appendix A (pi v0.84.1), read from the ``.git`` file and ``commondir`` on disk; git
itself is never run. Anything broken gives a warning and disables shadowing, nothing more.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from pi_lsp.safety import MiB, read_regular

MAX_CONTEXT_FILE_BYTES = 8 * MiB
"""A context file (AGENTS.md, SYSTEM.md, git metadata) larger than this is not read."""


class ContextWarning(BaseModel):
    """A problem met while loading context; the load goes on without the offending file."""

    model_config = ConfigDict(frozen=True)

    path: str
    """The file or directory the problem is about."""
    message: str
    """What went wrong and what was done about it."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


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


# Nested linked git worktrees (Appendix A)

_GITDIR_PREFIX = "gitdir:"


@dataclass(frozen=True, slots=True)
class GitPaths:
    """Where the checkout containing a directory keeps its git data."""

    worktree_root: str
    """The directory holding ``.git`` (lexical, as reached from cwd)."""
    git_dir: str
    """The ``.git`` directory, or the ``gitdir:`` target of a ``.git`` file."""
    common_git_dir: str
    """The repository's shared git dir: ``git_dir`` resolved through ``commondir`` if present."""


def find_git_paths(fs: ContextFs, start: str, warnings: list[ContextWarning]) -> GitPaths | None:
    """Walk up from ``start`` to the first ``.git`` and describe it; None if none or broken."""
    directory = start
    while True:
        dot_git = os.path.join(directory, ".git")
        try:
            found = fs.stat(dot_git)
        except (FileNotFoundError, NotADirectoryError):
            found = None
        except OSError as exc:
            _warn(warnings, dot_git, f"cannot inspect: {describe_os_error(exc)}")
            return None
        if found is not None:
            if stat.S_ISDIR(found.st_mode):
                return _from_git_directory(fs, directory, dot_git, warnings)
            if stat.S_ISREG(found.st_mode):
                return _from_git_file(fs, directory, dot_git, warnings)
            _warn(warnings, dot_git, "neither a file nor a directory")
            return None
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def shadowed_context_file(fs: ContextFs, cwd: str, warnings: list[ContextWarning]) -> str | None:
    """The main checkout's context file that the ancestor walk from ``cwd`` must skip, if any.

    Only a linked worktree strictly inside its main checkout shadows anything, and only when
    ``<main root>/.git`` is the common git dir (this excludes bare layouts and submodules). The
    skipped file is the main root's file with the worktree root's own context file name.
    """
    paths = find_git_paths(fs, cwd, warnings)
    if paths is None:
        return None
    common_git_dir = os.path.realpath(paths.common_git_dir)
    worktree_root = os.path.realpath(paths.worktree_root)
    main_root = os.path.dirname(common_git_dir)
    if not _strictly_inside(worktree_root, main_root):
        return None
    if os.path.realpath(os.path.join(main_root, ".git")) != common_git_dir:
        return None
    own_name = first_candidate_name(fs, worktree_root)
    return None if own_name is None else os.path.join(main_root, own_name)


def _from_git_directory(
    fs: ContextFs, directory: str, dot_git: str, warnings: list[ContextWarning]
) -> GitPaths | None:
    """An ordinary checkout: ``.git`` is the git dir itself."""
    if stat_or_none(fs, os.path.join(dot_git, "HEAD")) is None:
        _warn(warnings, dot_git, "not a git directory (no HEAD); worktree check skipped")
        return None
    return GitPaths(worktree_root=directory, git_dir=dot_git, common_git_dir=dot_git)


def _from_git_file(
    fs: ContextFs, directory: str, dot_git: str, warnings: list[ContextWarning]
) -> GitPaths | None:
    """A linked worktree or submodule: ``.git`` is a file pointing at the git dir."""
    first_line = _read_first_line(fs, dot_git, warnings)
    if first_line is None:
        return None
    if not first_line.startswith(_GITDIR_PREFIX):
        _warn(warnings, dot_git, "broken .git file (no 'gitdir:' line); worktree check skipped")
        return None
    target = first_line[len(_GITDIR_PREFIX) :].strip()
    git_dir = os.path.normpath(os.path.join(directory, target))
    if not target or stat_or_none(fs, os.path.join(git_dir, "HEAD")) is None:
        message = f"broken .git file: {git_dir!r} is not a git directory; worktree check skipped"
        _warn(warnings, dot_git, message)
        return None
    common_git_dir = git_dir
    commondir = os.path.join(git_dir, "commondir")
    if stat_or_none(fs, commondir) is not None:
        relative = _read_first_line(fs, commondir, warnings)
        if relative is None:
            return None
        common_git_dir = os.path.normpath(os.path.join(git_dir, relative))
    return GitPaths(worktree_root=directory, git_dir=git_dir, common_git_dir=common_git_dir)


def _read_first_line(fs: ContextFs, path: str, warnings: list[ContextWarning]) -> str | None:
    """The first line of a small git metadata file, stripped; None (with a warning) on error."""
    try:
        data = fs.read_bytes(path)
    except OSError as exc:
        _warn(warnings, path, f"cannot read: {describe_os_error(exc)}; worktree check skipped")
        return None
    text = data.decode("utf-8", errors="replace").strip()
    return text.splitlines()[0].strip() if text else ""


def _strictly_inside(child: str, parent: str) -> bool:
    """Whether ``child`` lies below ``parent`` (both absolute, canonical)."""
    return child != parent and os.path.commonpath([child, parent]) == parent


def _warn(warnings: list[ContextWarning], path: str, message: str) -> None:
    warnings.append(ContextWarning(path=path, message=message))

"""Nested linked git worktrees: which main-checkout context file the worktree's own copy shadows.

A worktree created inside its main checkout (``repo/.worktrees/feature``) has the main
checkout's root as an ancestor, so a plain ancestor walk would load the repository's
``AGENTS.md`` twice: once from the worktree root, once from the main root. The rules are those
of the spec's Appendix A (pi v0.84.1), read from the ``.git`` file and ``commondir`` on disk;
git itself is never run. Anything broken gives a warning and disables shadowing, nothing more.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from pi_lsp.prompt.fs import ContextFs, describe_os_error, first_candidate_name, stat_or_none
from pi_lsp.prompt.models import ContextWarning

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

"""Fixtures for the prompt tests: file trees, real git, and genuinely unreadable files."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "pi_lsp tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "pi_lsp tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

Git = Callable[..., str]
WriteTree = Callable[[Mapping[str, str]], Path]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A layout root with no context file in any ancestor (the loader walks up to /)."""
    base = tmp_path.resolve() / "layout"
    base.mkdir()
    for ancestor in base.parents:
        for name in ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"):
            assert not (ancestor / name).exists(), f"stray context file {ancestor / name}"
    return base


@pytest.fixture
def write_tree(root: Path) -> WriteTree:
    """Write ``{relative path: text}`` under ``root``; a path ending in ``/`` is a directory."""

    def write(files: Mapping[str, str]) -> Path:
        for relative, text in files.items():
            target = root / relative
            if relative.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        return root

    return write


@pytest.fixture
def git() -> Git:
    """Run git with a fixed identity and no user or system config; returns stdout."""

    def run(*args: str, cwd: Path) -> str:
        result = subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", *args],
            cwd=cwd,
            env={**os.environ, **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
        return result.stdout

    return run


@pytest.fixture
def make_unreadable() -> Callable[[Path], str]:
    """A function that turns a path into a file that cannot be read (see :func:`_unreadable`)."""
    return _unreadable


def _unreadable(path: Path) -> str:
    """Make ``path`` a regular file (as ``stat`` sees it) whose read fails; say how.

    As an ordinary user, mode 000 does it. Root ignores permission bits, so there the file is
    a link to ``/proc/self/mem``: a regular file whose first bytes (the unmapped page at
    address 0) always fail to read with EIO. Either way the caller checks that reading fails.
    """
    if os.geteuid() != 0:
        path.write_text("secret\n")
        path.chmod(0)
        return "permission denied"
    path.symlink_to("/proc/self/mem")
    return "input/output error"

"""Worktree shadowing on repositories made by real git (spec Appendix A).

Only a linked worktree nested inside its main checkout skips the main checkout's copy of the
worktree root's own context file. An ordinary repo, a sibling worktree, a bare layout and a
submodule skip nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pi_lsp.prompt import load_context_files
from pi_lsp.prompt.fs import LocalFs, find_git_paths, shadowed_context_file


def loaded_paths(cwd: Path, root: Path) -> list[str]:
    loaded = load_context_files(cwd, root / "agent")
    assert loaded.warnings == ()
    return [os.path.relpath(f.path, root) for f in loaded.files]


@pytest.fixture
def repo(root: Path, write_tree, git) -> Path:
    """``root/repo``: a committed main checkout with AGENTS.md at its root and in src/."""
    write_tree(
        {
            "AGENTS.md": "outside every repository",
            "repo/AGENTS.md": "repo root",
            "repo/src/AGENTS.md": "repo src",
            "repo/.gitignore": ".worktrees/\n",
        }
    )
    main = root / "repo"
    git("init", "-q", cwd=main)
    git("add", "-A", cwd=main)
    git("commit", "-q", "-m", "initial", cwd=main)
    return main


def test_ordinary_repo_skips_nothing(root: Path, repo: Path) -> None:
    assert loaded_paths(repo / "src", root) == ["AGENTS.md", "repo/AGENTS.md", "repo/src/AGENTS.md"]
    assert shadowed_context_file(LocalFs(), str(repo / "src"), []) is None


def test_nested_worktree_skips_the_main_checkout_copy(root: Path, repo: Path, git) -> None:
    git("worktree", "add", "-q", "-b", "feature", ".worktrees/feature", cwd=repo)
    worktree = repo / ".worktrees/feature"
    assert loaded_paths(worktree / "src", root) == [
        "AGENTS.md",
        "repo/.worktrees/feature/AGENTS.md",
        "repo/.worktrees/feature/src/AGENTS.md",
    ]
    assert loaded_paths(worktree, root) == ["AGENTS.md", "repo/.worktrees/feature/AGENTS.md"]
    paths = find_git_paths(LocalFs(), str(worktree / "src"), [])
    assert paths is not None
    assert os.path.realpath(paths.common_git_dir) == str(repo / ".git")


def test_nested_worktree_with_another_file_name_skips_nothing(root: Path, repo: Path, git) -> None:
    git("worktree", "add", "-q", "-b", "feature", ".worktrees/feature", cwd=repo)
    worktree = repo / ".worktrees/feature"
    (worktree / "AGENTS.md").unlink()
    (worktree / "CLAUDE.md").write_text("worktree claude")
    assert loaded_paths(worktree, root) == [
        "AGENTS.md",
        "repo/AGENTS.md",
        "repo/.worktrees/feature/CLAUDE.md",
    ]


def test_nested_worktree_reached_through_a_symlink_compares_real_paths(
    root: Path, repo: Path, git
) -> None:
    git("worktree", "add", "-q", "-b", "feature", ".worktrees/feature", cwd=repo)
    (root / "alias").symlink_to("repo")
    assert loaded_paths(root / "alias/.worktrees/feature", root) == [
        "AGENTS.md",
        "alias/.worktrees/feature/AGENTS.md",
    ]


def test_sibling_worktree_skips_nothing(root: Path, repo: Path, git) -> None:
    git("worktree", "add", "-q", "-b", "hotfix", "../hotfix", cwd=repo)
    assert loaded_paths(root / "hotfix/src", root) == [
        "AGENTS.md",
        "hotfix/AGENTS.md",
        "hotfix/src/AGENTS.md",
    ]
    assert shadowed_context_file(LocalFs(), str(root / "hotfix/src"), []) is None


def test_bare_layout_skips_nothing(root: Path, repo: Path, git) -> None:
    project = root / "proj"
    project.mkdir()
    git("clone", "-q", "--bare", str(repo), str(project / ".bare"), cwd=root)
    (project / ".git").write_text("gitdir: ./.bare\n")
    (project / "AGENTS.md").write_text("the folder holding the bare repo")
    git("worktree", "add", "-q", "main", "main", cwd=project)
    assert loaded_paths(project / "main/src", root) == [
        "AGENTS.md",
        "proj/AGENTS.md",
        "proj/main/AGENTS.md",
        "proj/main/src/AGENTS.md",
    ]
    assert shadowed_context_file(LocalFs(), str(project / "main/src"), []) is None


def test_submodule_skips_nothing(root: Path, repo: Path, write_tree, git) -> None:
    write_tree({"library/AGENTS.md": "library"})
    git("init", "-q", cwd=root / "library")
    git("add", "-A", cwd=root / "library")
    git("commit", "-q", "-m", "library", cwd=root / "library")
    git("submodule", "add", "-q", str(root / "library"), "vendor/library", cwd=repo)
    submodule = repo / "vendor/library"
    assert (submodule / ".git").is_file()
    assert loaded_paths(submodule, root) == [
        "AGENTS.md",
        "repo/AGENTS.md",
        "repo/vendor/library/AGENTS.md",
    ]
    assert shadowed_context_file(LocalFs(), str(submodule), []) is None


def test_loading_never_runs_git(root: Path, repo: Path, git, monkeypatch) -> None:
    git("worktree", "add", "-q", "-b", "feature", ".worktrees/feature", cwd=repo)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the loader started a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse, raising=False)
    assert (
        loaded_paths(repo / ".worktrees/feature", root)[-1] == "repo/.worktrees/feature/AGENTS.md"
    )

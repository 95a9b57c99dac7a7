"""Problems on disk become warnings naming the path; the load always completes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_lsp.prompt import load_context_files, load_prompt_sources


def messages_about(loaded, path: Path) -> list[str]:
    return [w.message for w in loaded.warnings if w.path == str(path)]


def test_unreadable_file_warns_and_the_next_candidate_loads(
    root: Path, write_tree, make_unreadable
) -> None:
    write_tree({"p/CLAUDE.md": "fallback", "AGENTS.md": "top"})
    bad = root / "p/AGENTS.md"
    how = make_unreadable(bad)
    with pytest.raises(OSError):  # the fixture really produced an unreadable file
        bad.read_bytes()
    loaded = load_context_files(root / "p", root / "agent")
    assert [f.path for f in loaded.files] == [str(root / "AGENTS.md"), str(root / "p/CLAUDE.md")]
    [message] = messages_about(loaded, bad)
    assert message.startswith("cannot read: ")
    assert how in message.lower()
    assert str(bad) in str(loaded.warnings[0])


def test_symlink_loop_warns_and_is_skipped(root: Path, write_tree) -> None:
    write_tree({"p/CLAUDE.md": "fallback"})
    (root / "p/AGENTS.md").symlink_to("AGENTS.md")
    loaded = load_context_files(root / "p", root / "agent")
    assert [f.path for f in loaded.files] == [str(root / "p/CLAUDE.md")]
    assert messages_about(loaded, root / "p/AGENTS.md") == ["skipped: symbolic link loop"]


def test_dangling_symlink_warns_and_is_skipped(root: Path, write_tree) -> None:
    write_tree({"p/CLAUDE.md": "fallback"})
    (root / "p/AGENTS.override.md").symlink_to("gone.md")
    loaded = load_context_files(root / "p", root / "agent")
    assert [f.path for f in loaded.files] == [str(root / "p/CLAUDE.md")]
    [message] = messages_about(loaded, root / "p/AGENTS.override.md")
    assert "dangling symbolic link" in message


def test_non_utf8_content_warns_and_loads_with_replacement(root: Path) -> None:
    (root / "p").mkdir()
    (root / "p/AGENTS.md").write_bytes(b"caf\xe9 rules\n")
    loaded = load_context_files(root / "p", root / "agent")
    assert [f.content for f in loaded.files] == ["caf\ufffd rules\n"]
    [message] = messages_about(loaded, root / "p/AGENTS.md")
    assert message.startswith("not valid UTF-8 (first bad byte at offset 3)")


GIT_PROBLEMS = {
    # a broken .git disables only the worktree shadowing: both files still load
    "broken .git file": (
        {
            "repo/AGENTS.md": "repo",
            "repo/wt/AGENTS.md": "worktree",
            "repo/wt/.git": "this is not a gitdir line\n",
        },
        "repo/wt",
        ["repo", "worktree"],
        r"broken \.git file",
    ),
    "git file pointing nowhere": (
        {"wt/AGENTS.md": "worktree", "wt/.git": "gitdir: ../missing/.git/worktrees/wt\n"},
        "wt",
        ["worktree"],
        "is not a git directory",
    ),
    "git symlink loop": (
        {"wt/AGENTS.md": "worktree", "wt/.git": None},
        "wt",
        ["worktree"],
        "^cannot inspect: symbolic link loop$",
    ),
    "git directory without HEAD": (
        {"r/AGENTS.md": "r", "r/.git/config": ""},
        "r",
        ["r"],
        "no HEAD",
    ),
}


@pytest.mark.parametrize(
    ("tree", "cwd", "contents", "pattern"), GIT_PROBLEMS.values(), ids=GIT_PROBLEMS
)
def test_git_metadata_problems_warn_once_and_the_files_still_load(
    root: Path, write_tree, tree: dict[str, str | None], cwd: str, contents: list[str], pattern: str
) -> None:
    write_tree({path: text for path, text in tree.items() if text is not None})
    for path in [path for path, text in tree.items() if text is None]:
        (root / path).symlink_to(".git")  # a link to itself
    loaded = load_context_files(root / cwd, root / "agent")
    assert [f.content for f in loaded.files] == contents
    [message] = messages_about(loaded, root / cwd / ".git")
    assert re.search(pattern, message), message


def test_unreadable_system_file_falls_back_to_the_agent_dir(
    root: Path, write_tree, make_unreadable
) -> None:
    write_tree({"agent/SYSTEM.md": "global prompt", "p/.pi/": ""})
    bad = root / "p/.pi/SYSTEM.md"
    make_unreadable(bad)
    context = load_prompt_sources(root / "p", root / "agent")
    assert context.system.custom_prompt == "global prompt"
    assert [w.path for w in context.warnings] == [str(bad)]


def test_one_problem_gives_one_warning_even_if_met_twice(
    root: Path, write_tree, make_unreadable
) -> None:
    # The agent dir is also cwd: the global pass and the ancestor walk both meet the file.
    write_tree({"p/CLAUDE.md": "fallback"})
    make_unreadable(root / "p/AGENTS.md")
    loaded = load_context_files(root / "p", root / "p")
    assert len(loaded.warnings) == 1
    assert [f.source for f in loaded.files] == ["global"]

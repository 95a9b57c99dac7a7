"""The context-file loader: candidates, order, de-duplication (decision D3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.prompt import load_context_files
from pi_lsp.prompt.files import ContextLoad


def listing(loaded: ContextLoad, root: Path) -> list[tuple[str, str]]:
    return [(os.path.relpath(f.path, root), f.source) for f in loaded.files]


ORDER_CASES = {
    "global first, then the layout root down to cwd": (
        {
            "agent/AGENTS.md": "global",
            "AGENTS.md": "layout root",
            "proj/AGENTS.md": "proj",
            "proj/pkg/app/CLAUDE.md": "app",
            "proj/other/AGENTS.md": "sibling, not an ancestor",
            "proj/pkg/app/src/deeper/AGENTS.md": "below cwd, never loaded",
        },
        "proj/pkg/app/src",
        [
            ("agent/AGENTS.md", "global"),
            ("AGENTS.md", "ancestor"),
            ("proj/AGENTS.md", "ancestor"),
            ("proj/pkg/app/CLAUDE.md", "ancestor"),
        ],
    ),
    "candidate order per directory": (
        {
            "a/AGENTS.override.md": "override",
            "a/AGENTS.md": "agents",
            "a/b/AGENTS.MD": "upper ext",
            "a/b/CLAUDE.md": "claude",
            "a/b/c/CLAUDE.md": "claude",
            "a/b/c/CLAUDE.MD": "upper claude",
            "a/b/c/d/CLAUDE.MD": "only upper claude",
            "a/b/c/d/e/agents.md": "wrong case",
            "a/b/c/d/e/CLAUDE.override.md": "not a candidate",
        },
        "a/b/c/d/e",
        [
            ("a/AGENTS.override.md", "ancestor"),
            ("a/b/AGENTS.MD", "ancestor"),
            ("a/b/c/CLAUDE.md", "ancestor"),
            ("a/b/c/d/CLAUDE.MD", "ancestor"),
        ],
    ),
}


@pytest.mark.parametrize(("tree", "cwd", "expected"), ORDER_CASES.values(), ids=ORDER_CASES)
def test_which_files_load_and_in_what_order(
    root: Path, write_tree, tree: dict[str, str], cwd: str, expected: list[tuple[str, str]]
) -> None:
    write_tree(tree)
    loaded = load_context_files(root / cwd, root / "agent")
    assert listing(loaded, root) == expected
    assert [f.content for f in loaded.files] == [tree[path] for path, _ in expected]
    assert loaded.warnings == ()


def test_a_directory_or_fifo_with_a_candidate_name_is_passed_over(root: Path) -> None:
    (root / "p/AGENTS.override.md").mkdir(parents=True)
    os.mkfifo(root / "p/AGENTS.md")
    (root / "p/CLAUDE.md").write_text("fallback")
    loaded = load_context_files(root / "p", root / "agent")
    assert listing(loaded, root) == [("p/CLAUDE.md", "ancestor")]
    assert loaded.warnings == ()


def test_bom_is_stripped_and_line_endings_kept(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "\ufeff# rules\r\n\r\n- 规则 🔒\r\n", "agent/AGENTS.md": "\ufeff"})
    loaded = load_context_files(root / "p", root / "agent")
    assert [f.content for f in loaded.files] == ["", "# rules\r\n\r\n- 规则 🔒\r\n"]


def test_empty_file_counts_and_shadows_later_candidates(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "", "p/CLAUDE.md": "not used"})
    loaded = load_context_files(root / "p", root / "agent")
    assert listing(loaded, root) == [("p/AGENTS.md", "ancestor")]
    assert loaded.files[0].content == ""


def test_cwd_equal_to_agent_dir_loads_the_file_once_as_global(root: Path, write_tree) -> None:
    write_tree({"x/AGENTS.md": "above", "x/y/CLAUDE.md": "both"})
    loaded = load_context_files(root / "x/y", root / "x/y")
    assert listing(loaded, root) == [("x/y/CLAUDE.md", "global"), ("x/AGENTS.md", "ancestor")]


def test_agent_dir_inside_the_tree_is_loaded_once_first(root: Path, write_tree) -> None:
    write_tree({"AGENTS.md": "top", "ag/AGENTS.md": "agent", "ag/p/AGENTS.md": "p"})
    loaded = load_context_files(root / "ag/p", root / "ag")
    assert listing(loaded, root) == [
        ("ag/AGENTS.md", "global"),
        ("AGENTS.md", "ancestor"),
        ("ag/p/AGENTS.md", "ancestor"),
    ]


def test_agent_dir_reached_through_a_symlink_is_not_loaded_twice(root: Path, write_tree) -> None:
    write_tree({"proj/AGENTS.md": "proj"})
    (root / "agent-link").symlink_to("proj")
    loaded = load_context_files(root / "proj", root / "agent-link")
    assert listing(loaded, root) == [("agent-link/AGENTS.md", "global")]


def test_a_symlinked_file_aliasing_an_ancestor_file_loads_once(root: Path, write_tree) -> None:
    write_tree({"AGENTS.md": "shared"})
    (root / "proj").mkdir()
    (root / "proj/AGENTS.md").symlink_to("../AGENTS.md")
    loaded = load_context_files(root / "proj", root / "agent")
    # The walk starts at cwd, so the nearest path to the file is the one kept.
    assert listing(loaded, root) == [("proj/AGENTS.md", "ancestor")]
    assert loaded.files[0].content == "shared"


def test_paths_are_lexical_through_a_symlinked_cwd(root: Path, write_tree) -> None:
    write_tree(
        {
            "ws/AGENTS.md": "lexical parent",
            "real/AGENTS.md": "real parent, not seen",
            "real/target/AGENTS.md": "target",
        }
    )
    (root / "ws/link").symlink_to("../real/target")
    loaded = load_context_files(root / "ws/link", root / "agent")
    assert listing(loaded, root) == [
        ("ws/AGENTS.md", "ancestor"),
        ("ws/link/AGENTS.md", "ancestor"),
    ]


def test_relative_cwd_is_made_absolute(root: Path, write_tree, monkeypatch) -> None:
    write_tree({"p/q/AGENTS.md": "q"})
    monkeypatch.chdir(root / "p")
    loaded = load_context_files("q/../q", root / "agent")
    assert [f.path for f in loaded.files] == [str(root / "p/q/AGENTS.md")]


def test_agent_dir_defaults_to_the_environment(root: Path, write_tree, monkeypatch) -> None:
    write_tree({"env-agent/AGENTS.md": "from env", "p/": ""})
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(root / "env-agent"))
    loaded = load_context_files(root / "p")
    assert listing(loaded, root) == [("env-agent/AGENTS.md", "global")]


def test_missing_agent_dir_is_not_a_problem(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "p"})
    loaded = load_context_files(root / "p", root / "does-not-exist")
    assert listing(loaded, root) == [("p/AGENTS.md", "ancestor")]
    assert loaded.warnings == ()

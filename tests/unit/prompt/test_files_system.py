"""SYSTEM.md and APPEND_SYSTEM.md lookup (spec §8.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.prompt import load_system_files


@pytest.mark.parametrize(
    ("system", "append", "expected"),
    [
        (
            "\ufeffproject system",
            "project append",
            ("project system", "project system", "project append"),
        ),
        ("", "", ("", None, None)),  # empty project files switch the global ones off
    ],
    ids=["project files win over the agent dir", "empty project files switch the global ones off"],
)
def test_project_files_come_before_the_agent_dir(
    root: Path, write_tree, system: str, append: str, expected: tuple[str, str | None, str | None]
) -> None:
    write_tree(
        {
            "agent/SYSTEM.md": "global system",
            "agent/APPEND_SYSTEM.md": "global append",
            "p/.pi/SYSTEM.md": system,
            "p/.pi/APPEND_SYSTEM.md": append,
        }
    )
    found = load_system_files(root / "p", root / "agent")
    assert found.system is not None
    assert found.system.path == str(root / "p/.pi/SYSTEM.md")
    assert (found.system.text, found.custom_prompt, found.append_text) == expected


def test_agent_dir_files_are_the_fallback(root: Path, write_tree) -> None:
    write_tree({"agent/SYSTEM.md": "global system", "agent/APPEND_SYSTEM.md": "global append"})
    found = load_system_files(root / "p", root / "agent")
    assert (found.custom_prompt, found.append_text) == ("global system", "global append")


def test_only_cwd_dot_pi_counts_not_an_ancestor(root: Path, write_tree) -> None:
    write_tree({"p/.pi/SYSTEM.md": "ancestor .pi, ignored", "p/app/": ""})
    found = load_system_files(root / "p/app", root / "agent")
    assert found.system is None
    assert found.custom_prompt is None


def test_nothing_anywhere(root: Path) -> None:
    found = load_system_files(root, root / "agent")
    assert (found.system, found.append, found.warnings) == (None, None, ())

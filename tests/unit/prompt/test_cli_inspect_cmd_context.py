"""``pi-lsp context files`` and ``pi-lsp context prompt``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.prompt import ContextFilesReport
from tests.deadlines import run_child


@pytest.fixture
def project(root: Path, write_tree, make_unreadable) -> Path:
    write_tree(
        {
            "agent/AGENTS.md": "global rules",
            "AGENTS.md": "top rules",
            "p/CLAUDE.md": "project rules",
            "p/.pi/APPEND_SYSTEM.md": "Appended text.",
        }
    )
    make_unreadable(root / "p/AGENTS.md")
    return root / "p"


def test_files_json_shape(root: Path, project: Path, capsys) -> None:
    code = main(
        ["context", "files", "--cwd", str(project), "--agent-dir", str(root / "agent"), "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert list(out) == ["files", "warnings"]
    assert out["files"] == [
        {"path": str(root / "agent/AGENTS.md"), "source": "global"},
        {"path": str(root / "AGENTS.md"), "source": "ancestor"},
        {"path": str(project / "CLAUDE.md"), "source": "ancestor"},
    ]
    [warning] = out["warnings"]
    assert warning.startswith(f"{project / 'AGENTS.md'}: cannot read:")
    ContextFilesReport.model_validate(out)


def test_files_text_lists_sources_and_warns_on_stderr(root: Path, project: Path, capsys) -> None:
    code = main(["context", "files", "--cwd", str(project), "--agent-dir", str(root / "agent")])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines() == [
        f"global    {root / 'agent/AGENTS.md'}",
        f"ancestor  {root / 'AGENTS.md'}",
        f"ancestor  {project / 'CLAUDE.md'}",
    ]
    assert captured.err.startswith(f"warning: {project / 'AGENTS.md'}: cannot read:")


def test_files_text_with_nothing_found(root: Path, capsys) -> None:
    code = main(["context", "files", "--cwd", str(root), "--agent-dir", str(root / "agent")])
    assert code == 0
    assert capsys.readouterr().out == "No context files.\n"


def test_prompt_prints_the_whole_system_prompt(root: Path, project: Path, capsys) -> None:
    code = main(["context", "prompt", "--cwd", str(project), "--agent-dir", str(root / "agent")])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("You are an expert coding assistant")
    assert out.index("Appended text.") < out.index("<project_context>")
    assert out.count("<project_instructions path=") == 3
    assert out.endswith(f"Current working directory: {project}\n")


def test_a_cwd_that_is_not_a_directory_is_a_one_line_error(root: Path, capsys) -> None:
    code = main(["context", "files", "--cwd", str(root / "missing")])
    assert code == 1
    assert capsys.readouterr().err == f"pi-lsp: not a directory: {root / 'missing'}\n"


def test_context_without_a_subcommand_shows_usage(capsys) -> None:
    assert main(["context"]) == 2
    assert "files" in capsys.readouterr().err


def test_module_entry_point_in_a_subprocess(root: Path, project: Path) -> None:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(root / "agent")}
    result = run_child(
        [sys.executable, "-m", "pi_lsp", "context", "files", "--json"], cwd=project, env=env
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [f["source"] for f in out["files"]] == ["global", "ancestor", "ancestor"]
    assert out["files"][2]["path"] == str(project / "CLAUDE.md")
    assert len(out["warnings"]) == 1

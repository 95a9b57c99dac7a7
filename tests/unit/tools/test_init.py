"""The registry: the seven tools, their summaries, descriptions and argument schemas."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from pi_lsp.literals import DEFAULT_ACTIVE_TOOLS
from pi_lsp.tools import (
    TOOL_NAMES,
    ShellSettings,
    create_tools,
)


def test_create_tools_builds_all_seven_with_pis_summaries(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path), shell=ShellSettings(agent_dir=str(tmp_path)))
    assert tuple(tools) == TOOL_NAMES == ("read", "bash", "edit", "write", "grep", "find", "ls")
    assert DEFAULT_ACTIVE_TOOLS == ("read", "bash", "edit", "write")
    assert {name: tool.summary for name, tool in tools.items()} == {
        "read": "Read file contents",
        "bash": "Execute bash commands (ls, grep, find, etc.)",
        "edit": "Make surgical edits to files (find exact text and replace)",
        "write": "Create or overwrite files",
        "grep": "Search file contents for patterns (respects .gitignore)",
        "find": "Find files by glob pattern (respects .gitignore)",
        "ls": "List directory contents",
    }


def test_default_agent_dir_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    bash = create_tools(str(tmp_path))["bash"]
    assert bash.settings.agent_dir == str(tmp_path / "agent")  # type: ignore[attr-defined]


def test_descriptions_are_pis(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path), shell=ShellSettings(agent_dir=str(tmp_path)))
    assert tools["read"].description.startswith(
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
        "Images are sent as attachments. For text files, output is truncated to 2000 lines or "
        "50KB (whichever is hit first)."
    )
    assert "truncated to last 2000 lines or 50KB" in tools["bash"].description
    assert "truncated to 100 matches or 50KB" in tools["grep"].description
    assert "truncated to 1000 results or 50KB" in tools["find"].description
    assert "truncated to 500 entries or 50KB" in tools["ls"].description


def test_parameter_schemas_keep_pis_argument_names(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path), shell=ShellSettings(agent_dir=str(tmp_path)))
    shapes = {
        name: (sorted(tool.parameters["properties"]), tool.parameters.get("required", []))
        for name, tool in tools.items()
    }
    assert shapes == {
        "read": (["limit", "offset", "path"], ["path"]),
        "bash": (["command", "timeout"], ["command"]),
        "edit": (["edits", "path"], ["path", "edits"]),  # pi 1.6.0's shape
        "write": (["content", "path"], ["path", "content"]),
        "grep": (
            ["context", "glob", "ignoreCase", "limit", "literal", "path", "pattern"],
            ["pattern"],
        ),
        "find": (["limit", "path", "pattern"], ["pattern"]),
        "ls": (["limit", "path"], []),
    }
    for tool in tools.values():
        jsonschema.Draft7Validator.check_schema(tool.parameters)
        for prop in tool.parameters["properties"].values():
            assert "anyOf" not in prop and "title" not in prop and "description" in prop
    assert tools["edit"].parameters["properties"]["edits"]["items"]["required"] == [
        "oldText",
        "newText",
    ]
    assert tools["bash"].parameters["properties"]["timeout"] == {
        "type": "number",
        "description": "Timeout in seconds (optional, no default timeout)",
    }

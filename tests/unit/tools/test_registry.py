"""The registry, the tool interface, argument schemas and validation, path handling."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import jsonschema
import pytest

from pi_lsp.tools import (
    DEFAULT_ACTIVE,
    TOOL_NAMES,
    ShellSettings,
    ToolError,
    create_tools,
)
from pi_lsp.tools.base import expand_path, read_path_variants, resolve_to_cwd, run_in_thread


def test_create_tools_builds_all_seven_with_pis_summaries(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path), shell=ShellSettings(agent_dir=str(tmp_path)))
    assert tuple(tools) == TOOL_NAMES == ("read", "bash", "edit", "write", "grep", "find", "ls")
    assert DEFAULT_ACTIVE == ("read", "bash", "edit", "write")
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


async def test_missing_and_mistyped_arguments(tmp_path: Path) -> None:
    edit = create_tools(str(tmp_path), shell=ShellSettings(agent_dir=str(tmp_path)))["edit"]
    with pytest.raises(ToolError) as error:
        await edit.execute({"path": "a", "edits": [{"newText": False}]})
    assert str(error.value) == (
        'Validation failed for tool "edit":\n'
        "  - edits.0.oldText: must have required property 'oldText'\n"
        "  - edits.0.newText: must be string\n\n"
        'Received arguments:\n{\n  "path": "a",\n  "edits": [\n    {\n      "newText": false\n    }\n  ]\n}'
    )
    with pytest.raises(ToolError) as not_object:
        await edit.execute(["a"])
    assert "  - root: must be object" in str(not_object.value)


async def test_run_in_thread_stops_the_work_on_abort() -> None:
    started = threading.Event()

    def work(stop: threading.Event) -> str:
        started.set()
        stop.wait()
        return "stopped"

    cancel = asyncio.Event()
    task = asyncio.create_task(run_in_thread(work, cancel))
    await asyncio.to_thread(started.wait)
    cancel.set()
    with pytest.raises(ToolError) as error:
        await task
    assert str(error.value) == "Operation aborted"
    assert await run_in_thread(lambda stop: "done", asyncio.Event()) == "done"


def test_path_normalization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert expand_path("@src/a.ts") == "src/a.ts"
    assert expand_path("my\u00a0file\u2003name") == "my file name"
    assert expand_path("~") == "/home/u"
    assert expand_path("~/x") == "/home/u/x"
    assert expand_path("~user/x") == "~user/x"
    assert resolve_to_cwd("../b/./c", "/w/a") == "/w/b/c"
    assert resolve_to_cwd("/abs/../x", "/w") == "/abs/../x"
    assert resolve_to_cwd(".", "/w") == "/w"
    assert resolve_to_cwd("@~/f", "/w") == os.path.join("/home/u", "f")


def test_read_fallback_variants() -> None:
    assert read_path_variants("/s/Shot at 1.02.03 PM.png") == [
        "/s/Shot at 1.02.03\u202fPM.png",
    ]
    assert read_path_variants("/s/Capture d'écran.png") == [
        "/s/Capture d'e\u0301cran.png",
        "/s/Capture d\u2019écran.png",
        "/s/Capture d\u2019e\u0301cran.png",
    ]

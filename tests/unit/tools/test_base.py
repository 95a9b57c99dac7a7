"""The tool interface: argument validation, the abortable worker thread, path arguments."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from pi_lsp.tools import (
    ShellSettings,
    ToolError,
    create_tools,
)
from pi_lsp.tools.base import expand_path, read_path_variants, resolve_to_cwd, run_in_thread


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

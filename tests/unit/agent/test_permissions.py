"""Permission gate: policies, the user's answers, timeouts, and refusals reaching the model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_lsp.agent.permissions import PermissionGate, PermissionRequest
from pi_lsp.settings import PermissionSettings
from pi_lsp.tools import create_tools
from tests.unit.agent.scripted import Reply, Script, run_checked


def gate(
    tmp_path: Path, answers: list[str], **policy: Any
) -> tuple[PermissionGate, list[PermissionRequest]]:
    asked: list[PermissionRequest] = []

    async def ask(request: PermissionRequest) -> Any:
        asked.append(request)
        answer = answers.pop(0)
        if answer == "hang":
            await asyncio.sleep(10)
        return answer

    settings = PermissionSettings.model_validate({"timeoutMs": 50, **policy})
    return PermissionGate(settings, roots=[str(tmp_path)], ask=ask), asked


async def test_policies_and_answers(tmp_path: Path) -> None:
    g, asked = gate(tmp_path, ["allowOnce", "deny", "allowSession", "hang"])
    cwd = str(tmp_path)
    assert await g.check("bash", "c1", {"command": "ls"}, cwd) is None
    refused = await g.check("bash", "c2", {"command": "rm -rf /"}, cwd)
    assert refused is not None and "did not allow" in refused
    assert await g.check("bash", "c3", {"command": "make"}, cwd) is None  # allowSession...
    assert await g.check("bash", "c4", {"command": "make again"}, cwd) is None  # ...not asked again
    assert [r.detail for r in asked] == ["ls", "rm -rf /", "make"]
    assert await g.check("write", "c5", {"path": "inside.txt", "content": ""}, cwd) is None
    outside = await g.check("write", "c6", {"path": "/etc/passwd", "content": ""}, cwd)
    assert outside is not None and "/etc/passwd" in outside  # no answer in time: denied
    assert asked[-1].kind == "writeOutsideWorkspace"
    assert await g.check("read", "c7", {"path": "/etc/passwd"}, cwd) is None  # reads are free


async def test_allow_and_deny_policies_never_ask(tmp_path: Path) -> None:
    g, asked = gate(tmp_path, [], bash="allow", writeOutsideWorkspace="deny")
    assert await g.check("bash", "c1", {"command": "ls"}, str(tmp_path)) is None
    denied = await g.check(
        "edit", "c2", {"path": "/tmp/x", "oldText": "a", "newText": "b"}, str(tmp_path)
    )
    assert denied is not None and "permissions.writeOutsideWorkspace" in denied
    no_asker = PermissionGate(PermissionSettings(), roots=[str(tmp_path)])
    assert await no_asker.check("bash", "c3", {"command": "ls"}, str(tmp_path)) is not None
    assert asked == []


async def test_a_refused_call_becomes_an_error_result_and_the_run_goes_on(tmp_path: Path) -> None:
    g, _ = gate(tmp_path, ["deny"])
    script = Script(Reply(calls=[("bash", {"command": "touch hacked"})]), Reply("understood"))
    messages, _events = await run_checked(
        script,
        create_tools(str(tmp_path)),
        lambda name, cid, args: g.check(name, cid, args, str(tmp_path)),
    )
    result = messages[2]
    assert result["isError"] and "did not allow" in result["content"][0]["text"]
    assert not (tmp_path / "hacked").exists()
    assert messages[-1]["content"][0]["text"] == "understood"

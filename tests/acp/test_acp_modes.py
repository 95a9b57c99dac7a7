"""Session modes: ask, allow edits, read-only (``session/set_mode`` and ``current_mode_update``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn
from tests.deadlines import HANG


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def _last_update(agent: Any, call_id: str) -> Any:
    return [u for u in agent.client.of("tool_call_update") if u.tool_call_id == call_id][-1]


def _changes(call_prefix: str) -> list[ScriptToolCall]:
    return [
        ScriptToolCall(
            name="write", arguments={"path": "new.txt", "content": "x"}, id=f"{call_prefix}w"
        ),
        ScriptToolCall(
            name="edit",
            arguments={"path": "calc.py", "oldText": "abs(a)", "newText": "a"},
            id=f"{call_prefix}e",
        ),
        ScriptToolCall(name="bash", arguments={"command": "touch made"}, id=f"{call_prefix}b"),
    ]


async def test_read_only_offers_only_reading_tools_and_refuses_writes(acp_agent: Any) -> None:
    script = Script(
        turns=[
            Turn(tool_calls=_changes("a")),
            Turn(text="Could not."),
            Turn(tool_calls=_changes("b"), response_delay=2.0),
            Turn(text="Still could not."),
            Turn(text="Back to asking."),
        ]
    )
    agent = await acp_agent(script, settings={"permissions": {"bash": "allow"}})
    await agent.init(fs=False)
    created = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    session = created.session_id
    assert created.modes.current_mode_id == "ask"
    assert [m.id for m in created.modes.available_modes] == ["ask", "allow_edits", "read_only"]
    unchanged = (agent.root / "calc.py").read_text()

    await agent.conn.set_session_mode(session_id=session, mode_id="read_only")
    [update] = agent.client.of("current_mode_update")
    assert update.current_mode_id == "read_only"
    answer = await agent.conn.prompt(session_id=session, prompt=[text_block("change things")])
    assert answer.stop_reason == "end_turn"
    # The model is offered pi's read-only tools only; the calls it makes anyway fail.
    assert _tool_names(agent.fake.bodies[0]) == ["read", "grep", "find", "ls"]
    assert all(_last_update(agent, f"a{c}").status == "failed" for c in "web")

    # Switched while a turn runs: its calls are refused without asking, even the bash the
    # settings allow, and say why.
    await agent.conn.set_session_mode(session_id=session, mode_id="ask")
    running = asyncio.ensure_future(
        agent.conn.prompt(session_id=session, prompt=[text_block("now change them")])
    )
    while len(agent.fake.bodies) < 3:
        await asyncio.sleep(0.02)
    assert {"bash", "edit", "write"} <= set(_tool_names(agent.fake.bodies[2]))
    await agent.conn.set_session_mode(session_id=session, mode_id="read_only")
    assert (await asyncio.wait_for(running, HANG)).stop_reason == "end_turn"
    for call_id in ("bw", "be", "bb"):
        end = _last_update(agent, call_id)
        assert end.status == "failed" and "read-only mode" in end.content[0].content.text
    assert agent.client.permission_requests == []
    assert not (agent.root / "new.txt").exists() and not (agent.root / "made").exists()
    assert (agent.root / "calc.py").read_text() == unchanged

    await agent.conn.set_session_mode(session_id=session, mode_id="ask")
    modes = [u.current_mode_id for u in agent.client.of("current_mode_update")]
    assert modes == ["read_only", "ask", "read_only", "ask"]
    await agent.conn.prompt(session_id=session, prompt=[text_block("again")])
    assert {"bash", "edit", "write"} <= set(_tool_names(agent.fake.bodies[-1]))


async def test_allow_edits_writes_outside_without_asking_but_bash_asks(
    acp_agent: Any, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    script = Script(
        turns=[
            Turn(
                tool_calls=[
                    ScriptToolCall(
                        name="write", arguments={"path": str(outside), "content": "hi\n"}, id="w"
                    ),
                    ScriptToolCall(name="bash", arguments={"command": "echo x"}, id="b"),
                ]
            ),
            Turn(text="Done."),
        ]
    )
    agent = await acp_agent(script)
    agent.client.permission_answer = "reject_once"
    await agent.init(fs=False)
    session = await agent.new()
    await agent.conn.set_session_mode(session_id=session, mode_id="allow_edits")
    await agent.conn.prompt(session_id=session, prompt=[text_block("write outside")])
    assert outside.read_text() == "hi\n"
    assert _last_update(agent, "w").status == "completed"
    [asked] = agent.client.permission_requests  # only the shell command
    assert asked.tool_call_id == "b"
    assert _last_update(agent, "b").status == "failed"


async def test_an_unknown_mode_is_invalid_params(acp_agent: Any) -> None:
    agent = await acp_agent()
    await agent.init()
    session = await agent.new()
    with pytest.raises(RequestError) as bad:
        await agent.conn.set_session_mode(session_id=session, mode_id="yolo")
    assert bad.value.code == -32602 and "yolo" in str(bad.value.data)
    with pytest.raises(RequestError) as unknown:
        await agent.conn.set_session_mode(session_id="nope", mode_id="ask")
    assert unknown.value.code == -32001

"""``pi-lsp --acp`` driven by the ACP Python SDK's client: initialize, sessions, prompts, tools."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import ToolCallStart

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn
from pi_lsp.session import SessionStore
from pi_lsp.session.paths import session_dir
from tests.acp.conftest import one_call
from tests.deadlines import HANG
from tests.e2e.rpc_checks import SLOW, holding_slow_turns


def varied(count: int) -> str:
    """Text that does not repeat (litellm stops a stream that repeats one chunk)."""
    return "".join(f"{i:05d} " for i in range(count))


async def test_initialize_advertises_protocol_1_and_pi_capabilities(acp_agent: Any) -> None:
    agent = await acp_agent()
    answer = await agent.init()
    assert answer.protocol_version == 1
    caps = answer.agent_capabilities
    assert caps.load_session is True
    assert caps.prompt_capabilities.image is True
    assert caps.prompt_capabilities.embedded_context is True
    assert caps.prompt_capabilities.audio is False
    sessions = caps.session_capabilities
    assert sessions.list is not None and sessions.resume is not None
    assert sessions.close is not None and sessions.fork is not None
    assert answer.auth_methods == []
    assert answer.agent_info.name == "pi-lsp"
    assert agent.checker.count >= 2


async def test_prompt_streams_chunks_and_a_read_tool_call(acp_agent: Any) -> None:
    script = Script(
        turns=[
            Turn(
                reasoning="Let me look.",
                tool_calls=[
                    ScriptToolCall(name="read", arguments={"path": "calc.py"}, id="call-read")
                ],
            ),
            Turn(text="add uses abs on a."),
        ]
    )
    agent = await acp_agent(script)
    await agent.init(fs=False)
    session = await agent.new()
    answer = await agent.conn.prompt(session_id=session, prompt=[text_block("explain calc.py")])
    assert answer.stop_reason == "end_turn"
    assert answer.usage is not None and answer.usage.total_tokens > 0
    client = agent.client
    assert "".join(u.content.text for u in client.of("agent_thought_chunk")) == "Let me look."
    assert "".join(u.content.text for u in client.of("agent_message_chunk")) == "add uses abs on a."
    start = client.of("tool_call")
    assert len(start) == 1 and isinstance(start[0], ToolCallStart)
    assert start[0].tool_call_id == "call-read" and start[0].kind == "read"
    assert start[0].status == "pending"
    assert start[0].locations[0].path == str(agent.root / "calc.py")
    progress = [u for u in client.of("tool_call_update") if u.tool_call_id == "call-read"]
    assert [u.status for u in progress if u.status] == ["in_progress", "completed"]
    final = progress[-1]
    assert "return abs(a) + b" in final.content[0].content.text
    usage = client.of("usage_update")
    assert usage and usage[-1].size == 100_000 and usage[-1].used > 0
    # The reply is in pi's session file, in pi's folder for the cwd.
    files = list(session_dir(str(agent.root), agent.agent_dir).glob("*.jsonl"))
    assert len(files) == 1
    store = SessionStore.open(files[0])
    assert store.session_id == session
    roles = [m["role"] for m in store.context().messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert answer.field_meta["pi"]["leafId"] == store.leaf_id


async def test_edit_goes_through_the_client_and_carries_a_diff(acp_agent: Any) -> None:
    script = Script(
        turns=[
            Turn(tool_calls=[ScriptToolCall(name="read", arguments={"path": "calc.py"})]),
            Turn(
                tool_calls=[
                    ScriptToolCall(
                        name="edit",
                        arguments={"path": "calc.py", "oldText": "abs(a)", "newText": "a"},
                        id="call-edit",
                    )
                ]
            ),
            Turn(text="Fixed."),
        ]
    )
    agent = await acp_agent(script)
    await agent.init(fs=True)
    calc = str(agent.root / "calc.py")
    unsaved = "def add(a, b):\n    return abs(a) + b  # unsaved\n"
    agent.client.buffers[calc] = unsaved
    session = await agent.new()
    answer = await agent.conn.prompt(session_id=session, prompt=[text_block("fix add")])
    assert answer.stop_reason == "end_turn"
    # The agent read the client's unsaved text, and its write went to the client, not the disk.
    read_result = agent.fake.bodies[1]["messages"][-1]
    assert "# unsaved" in json.dumps(read_result)
    assert agent.client.writes == [(calc, "def add(a, b):\n    return a + b  # unsaved\n")]
    assert (agent.root / "calc.py").read_text() == "def add(a, b):\n    return abs(a) + b\n"
    start = next(u for u in agent.client.of("tool_call") if u.tool_call_id == "call-edit")
    assert start.kind == "edit" and start.title == "edit calc.py"
    end = [u for u in agent.client.of("tool_call_update") if u.tool_call_id == "call-edit"][-1]
    assert end.status == "completed"
    diff = end.content[0]
    assert diff.type == "diff" and diff.path == calc
    assert diff.old_text == unsaved and diff.new_text == agent.client.buffers[calc]


async def test_without_fs_capability_the_disk_is_used(acp_agent: Any) -> None:
    script = one_call("write", {"path": "new.txt", "content": "hi\n"}, "Written.")
    agent = await acp_agent(script)
    await agent.init(fs=False)
    session = await agent.new()
    await agent.conn.prompt(session_id=session, prompt=[text_block("write it")])
    assert (agent.root / "new.txt").read_text() == "hi\n"
    assert agent.client.writes == [] and agent.client.reads == []
    end = agent.client.of("tool_call_update")[-1]
    assert end.content[0].type == "diff" and end.content[0].old_text is None


@pytest.mark.parametrize(
    ("answer", "allowed"), [("allow_once", True), ("reject_once", False), ("cancelled", False)]
)
async def test_bash_asks_permission(acp_agent: Any, answer: str, allowed: bool) -> None:
    script = one_call("bash", {"command": "echo hi-there"}, "Done.", "call-bash")
    agent = await acp_agent(script)
    agent.client.permission_answer = answer
    await agent.init()
    session = await agent.new()
    result = await agent.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert result.stop_reason == "end_turn"
    [asked] = agent.client.permission_requests
    assert asked.tool_call_id == "call-bash" and asked.kind == "execute"
    assert "echo hi-there" in asked.title
    end = [u for u in agent.client.of("tool_call_update") if u.tool_call_id == "call-bash"][-1]
    text = end.content[0].content.text
    if allowed:
        assert end.status == "completed" and "hi-there" in text
    else:
        assert end.status == "failed" and "did not allow" in text
    assert agent.client.of("tool_call")[0].kind == "execute"


async def test_a_client_that_never_answers_a_permission_request(acp_agent: Any) -> None:
    script = Script(
        turns=[
            Turn(tool_calls=[ScriptToolCall(name="bash", arguments={"command": "echo x"})]),
            Turn(text="Gave up."),
            Turn(text="still here"),
        ]
    )
    agent = await acp_agent(script, settings={"permissions": {"timeoutMs": 300}})
    agent.client.permission_answer = None
    await agent.init()
    session = await agent.new()
    result = await asyncio.wait_for(
        agent.conn.prompt(session_id=session, prompt=[text_block("run")]), 180
    )
    assert result.stop_reason == "end_turn"
    end = agent.client.of("tool_call_update")[-1]
    assert end.status == "failed"
    # The agent is alive and takes the next prompt.
    again = await agent.conn.prompt(session_id=session, prompt=[text_block("again")])
    assert again.stop_reason == "end_turn"


async def test_cancel_mid_stream(acp_agent: Any) -> None:
    # After 100 chunks the stream stays open until the client leaves: only the cancel ends it.
    script = Script(turns=[Turn(text=varied(700), chunk_size=6, chunk_delay=0.01, hang_after=100)])
    agent = await acp_agent(script)
    await agent.init()
    session = await agent.new()
    running = asyncio.ensure_future(
        agent.conn.prompt(session_id=session, prompt=[text_block("long")])
    )
    while len(agent.client.of("agent_message_chunk")) < 3:
        await asyncio.sleep(0.01)
    await agent.conn.cancel(session_id=session)
    result = await asyncio.wait_for(running, HANG)
    assert result.stop_reason == "cancelled"
    streamed = "".join(u.content.text for u in agent.client.of("agent_message_chunk"))
    assert 0 < len(streamed) < 4200
    # A second prompt works after the cancel.
    agent.fake.push(Turn(text="back"))
    again = await agent.conn.prompt(session_id=session, prompt=[text_block("again")])
    assert again.stop_reason == "end_turn"


async def test_a_second_prompt_while_running_is_refused_clearly(acp_agent: Any) -> None:
    script = Script(turns=[Turn(text=varied(300), chunk_size=6, chunk_delay=0.01), Turn(text="ok")])
    release = threading.Event()  # the first reply is held until the test lets it go
    fake = FakeOpenAI(script, responder=holding_slow_turns(release))
    fake.start()
    agent = await acp_agent(fake=fake)
    await agent.init()
    session = await agent.new()
    running = asyncio.ensure_future(
        agent.conn.prompt(session_id=session, prompt=[text_block(f"one, {SLOW}")])
    )
    # the turn runs: its model call waits for its reply (``bodies`` would wait for the lock
    # the held responder keeps)
    while not fake.requests:
        await asyncio.sleep(0.01)
    with pytest.raises(RequestError) as refused:
        await agent.conn.prompt(session_id=session, prompt=[text_block("two")])
    assert refused.value.code == -32004 and "session/cancel" in str(refused.value)
    steered = await agent.conn.ext_method("pi/steer", {"sessionId": session, "text": "and also"})
    assert steered == {"queued": True}
    release.set()
    assert (await asyncio.wait_for(running, HANG)).stop_reason == "end_turn"
    assert "and also" in json.dumps(agent.fake.bodies[-1]["messages"])


async def test_config_options_model_and_thinking(acp_agent: Any) -> None:
    agent = await acp_agent(
        Script(turns=[Turn(text="hi")]),
        settings={
            "models": {
                "openai/fake-model": {"contextWindow": 100_000, "reasoning": True},
                "openai/other-model": {"contextWindow": 50_000},
            }
        },
    )
    await agent.init()
    created = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    options = {o.id: o for o in created.config_options}
    assert options["model"].current_value == "openai/fake-model"
    assert {o.value for o in options["model"].options} >= {
        "openai/fake-model",
        "openai/other-model",
    }
    assert options["thought_level"].current_value == "medium"
    changed = await agent.conn.set_config_option(
        config_id="thought_level", session_id=created.session_id, value="high"
    )
    assert {o.id: o.current_value for o in changed.config_options}["thought_level"] == "high"
    changed = await agent.conn.set_config_option(
        config_id="model", session_id=created.session_id, value="openai/other-model"
    )
    values = {o.id: o.current_value for o in changed.config_options}
    assert values["model"] == "openai/other-model" and values["thought_level"] == "off"
    with pytest.raises(RequestError) as bad:
        await agent.conn.set_config_option(
            config_id="thought_level", session_id=created.session_id, value="extreme"
        )
    assert bad.value.code == -32602


async def test_mcp_servers_are_reported_as_not_supported(acp_agent: Any) -> None:
    from acp.schema import McpServerStdio

    agent = await acp_agent()
    await agent.init()
    created = await agent.conn.new_session(
        cwd=str(agent.root),
        mcp_servers=[McpServerStdio(name="files", command="mcp-files", args=[], env=[])],
    )
    assert created.field_meta["pi"]["unsupportedMcpServers"] == ["files"]


async def test_cwd_must_be_absolute(acp_agent: Any) -> None:
    agent = await acp_agent()
    await agent.init()
    with pytest.raises(RequestError) as bad:
        await agent.conn.new_session(cwd="relative/dir", mcp_servers=[])
    assert bad.value.code == -32602


def _unused(_: Path) -> None:
    return None


async def test_bash_runs_in_the_clients_terminal_when_offered(acp_agent: Any) -> None:
    script = one_call("bash", {"command": "echo hello-term; exit 3"}, "Ran.", "t1")
    agent = await acp_agent(script, settings={"permissions": {"bash": "allow"}})
    await agent.init(terminal=True)
    session = await agent.new()
    await agent.conn.prompt(session_id=session, prompt=[text_block("run")])
    assert list(agent.client.terminals) == ["term-0"]
    updates = [u for u in agent.client.of("tool_call_update") if u.tool_call_id == "t1"]
    assert any(
        c.type == "terminal" and c.terminal_id == "term-0" for u in updates for c in u.content or []
    )
    final = updates[-1]
    assert final.status == "failed"  # exit code 3, as pi reports it
    assert final.content[0].type == "terminal"
    text = final.content[1].content.text
    assert "hello-term" in text and "Command exited with code 3" in text
    # The model got pi's text for the call.
    assert "Command exited with code 3" in json.dumps(agent.fake.bodies[-1]["messages"])


async def test_images_and_embedded_context_reach_the_stored_user_message(acp_agent: Any) -> None:
    from acp import embedded_text_resource, image_block, resource_block, resource_link_block

    agent = await acp_agent(Script(turns=[Turn(text="seen")]))
    await agent.init()
    session = await agent.new()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
    calc = (agent.root / "calc.py").as_uri()
    await agent.conn.prompt(
        session_id=session,
        prompt=[
            text_block("look"),
            image_block(png, "image/png"),
            resource_link_block("calc.py", calc),
            resource_block(embedded_text_resource(calc, "print('selected')")),
        ],
    )
    files = list(session_dir(str(agent.root), agent.agent_dir).glob("*.jsonl"))
    user = SessionStore.open(files[0]).context().messages[0]
    text = user["content"][0]["text"]
    assert text.startswith("look\n[@calc.py](file://")
    assert f"<context uri=\"{calc}\">\nprint('selected')\n</context>" in text
    assert user["content"][1] == {"type": "image", "data": png, "mimeType": "image/png"}
    with pytest.raises(RequestError) as refused:
        from acp import audio_block

        await agent.conn.prompt(session_id=session, prompt=[audio_block("AAAA", "audio/wav")])
    assert refused.value.code == -32009 and "Audio" in str(refused.value)

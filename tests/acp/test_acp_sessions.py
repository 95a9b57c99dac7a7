"""Sessions over ACP: load (replay), list, resume, close, fork, the _pi/* methods, and the
session opening the same in the LSP face's CLI (``pi-lsp sessions context``)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn
from pi_lsp.session import SessionStore
from pi_lsp.session.paths import session_dir
from tests.deadlines import HANG, run_child
from tests.e2e.conftest import server_env
from tests.lsp_editor import plain


def _script() -> Script:
    return Script(
        turns=[
            Turn(
                reasoning="Reading first.",
                tool_calls=[ScriptToolCall(name="read", arguments={"path": "calc.py"}, id="c1")],
            ),
            Turn(text="It adds."),
            Turn(text="Second answer."),
        ]
    )


async def _two_turns(agent: Any) -> str:
    await agent.init(fs=False)
    session = await agent.new()
    await agent.conn.prompt(session_id=session, prompt=[text_block("what does calc do?")])
    await agent.conn.prompt(session_id=session, prompt=[text_block("and then?")])
    return session


def _store(agent: Any, session: str) -> SessionStore:
    [path] = [
        p
        for p in session_dir(str(agent.root), agent.agent_dir).glob("*.jsonl")
        if SessionStore.open(p).session_id == session
    ]
    return SessionStore.open(path)


def _rebuild(updates: list[Any]) -> list[dict[str, Any]]:
    """The messages a client reconstructs from a replay (consecutive chunks merged)."""
    messages: list[dict[str, Any]] = []
    for update in updates:
        kind = update.session_update
        entry = (update.field_meta or {}).get("pi", {}).get("entryId")
        if kind in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk"):
            role = "user" if kind == "user_message_chunk" else "assistant"
            if not messages or messages[-1]["entryId"] != entry:
                messages.append({"role": role, "entryId": entry, "parts": []})
            messages[-1]["parts"].append((kind, update.content.text))
        elif kind == "tool_call":
            if not messages or messages[-1]["entryId"] != entry:
                messages.append({"role": "assistant", "entryId": entry, "parts": []})
            messages[-1]["parts"].append(("tool_call", update.tool_call_id, update.status))
    return messages


def _expected(store: SessionStore) -> list[dict[str, Any]]:
    context = store.context()
    out: list[dict[str, Any]] = []
    results = {m["toolCallId"]: m for m in context.messages if m["role"] == "toolResult"}
    for message, entry_id in zip(context.messages, context.entry_ids, strict=True):
        if message["role"] == "user":
            parts = [
                ("user_message_chunk", b["text"]) for b in message["content"] if b["type"] == "text"
            ]
            out.append({"role": "user", "entryId": entry_id, "parts": parts})
        elif message["role"] == "assistant":
            parts: list[Any] = []
            for block in message["content"]:
                if block["type"] == "thinking":
                    parts.append(("agent_thought_chunk", block["thinking"]))
                elif block["type"] == "text":
                    parts.append(("agent_message_chunk", block["text"]))
                elif block["type"] == "toolCall":
                    status = "failed" if results[block["id"]]["isError"] else "completed"
                    parts.append(("tool_call", block["id"], status))
            out.append({"role": "assistant", "entryId": entry_id, "parts": parts})
    return out


async def test_load_replays_the_sessions_messages(acp_agent: Any) -> None:
    first = await acp_agent(_script())
    session = await _two_turns(first)
    await first.conn.close_session(session_id=session)
    second = await acp_agent(fake=first.fake)
    await second.init(fs=False)
    loaded = await second.conn.load_session(
        cwd=str(second.root), session_id=session, mcp_servers=[]
    )
    assert {o.id for o in loaded.config_options} == {"model", "thought_level"}
    replayed = [u for _, u in second.client.updates if u.session_update != "usage_update"]
    expected = _expected(_store(second, session))
    assert _rebuild(replayed) == expected
    assert [m["role"] for m in expected] == ["user", "assistant", "assistant", "user", "assistant"]
    tool = next(u for u in replayed if u.session_update == "tool_call")
    assert tool.kind == "read" and "return abs(a) + b" in tool.content[0].content.text
    # The loaded session takes a new prompt.
    second.fake.push(Turn(text="third"))
    answer = await second.conn.prompt(session_id=session, prompt=[text_block("more")])
    assert answer.stop_reason == "end_turn"


async def test_list_resume_close(acp_agent: Any) -> None:
    agent = await acp_agent(_script())
    session = await _two_turns(agent)
    listed = await agent.conn.list_sessions(cwd=str(agent.root))
    [info] = listed.sessions
    assert info.session_id == session and info.cwd == str(agent.root)
    assert info.title == "what does calc do?" and info.updated_at
    await agent.conn.close_session(session_id=session)
    with pytest.raises(RequestError) as gone:
        await agent.conn.prompt(session_id=session, prompt=[text_block("x")])
    assert gone.value.code == -32001
    before = len(agent.client.updates)
    await agent.conn.resume_session(cwd=str(agent.root), session_id=session, mcp_servers=[])
    assert len(agent.client.updates) == before  # no replay
    agent.fake.push(Turn(text="resumed"))
    answer = await agent.conn.prompt(session_id=session, prompt=[text_block("go on")])
    assert answer.stop_reason == "end_turn"
    assert [m["role"] for m in _store(agent, session).context().messages][-2:] == [
        "user",
        "assistant",
    ]


async def test_fork_copies_the_path_into_a_new_file(acp_agent: Any) -> None:
    agent = await acp_agent(_script())
    session = await _two_turns(agent)
    forked = await agent.conn.fork_session(cwd=str(agent.root), session_id=session, mcp_servers=[])
    assert forked.session_id != session
    original, copy = _store(agent, session), _store(agent, forked.session_id)
    assert copy.context().messages == original.context().messages
    assert copy.header.get("parentSession")
    agent.fake.push(Turn(text="in the fork"))
    await agent.conn.prompt(session_id=forked.session_id, prompt=[text_block("fork turn")])
    assert len(_store(agent, session).context().messages) == len(original.context().messages)


async def test_pi_extension_methods(acp_agent: Any) -> None:
    agent = await acp_agent(_script(), settings={"compaction": {"keepRecentTokens": 1}})
    session = await _two_turns(agent)
    tree = await agent.conn.ext_method("pi/tree", {"sessionId": session})
    store = _store(agent, session)
    assert {n["id"] for n in tree["nodes"]} == {r.id for r in store.records}
    first_user = next(r for r in store.records if r.role == "user")
    answer = next(
        r
        for r in store.records
        if r.role == "assistant" and r.parent_id and store.get(r.parent_id).role == "toolResult"
    )
    labelled = await agent.conn.ext_method(
        "pi/label", {"sessionId": session, "entryId": answer.id, "label": "first answer"}
    )
    assert labelled["labelEntryId"]
    moved = await agent.conn.ext_method("pi/branch", {"sessionId": session, "entryId": answer.id})
    assert moved["leafId"] == answer.id and moved["moved"] is True
    assert agent.client.of("config_option_update")
    agent.fake.push(Turn(text="## Goal\nsummary text"))
    compacted = await agent.conn.ext_method("pi/compact", {"sessionId": session})
    assert "## Goal\nsummary text" in compacted["summary"]
    back = await agent.conn.ext_method(
        "pi/branch", {"sessionId": session, "entryId": first_user.id}
    )
    assert back["editorText"] == "what does calc do?"
    with pytest.raises(RequestError) as bad:
        await agent.conn.ext_method("pi/branch", {"sessionId": session, "entryId": "nope"})
    assert bad.value.code == -32002
    with pytest.raises(RequestError) as bad:
        await agent.conn.ext_method("pi/branch", {"sessionId": session})
    assert bad.value.code == -32602
    with pytest.raises(RequestError) as bad:
        await agent.conn.ext_method("pi/nothing", {})
    assert bad.value.code == -32601
    assert SessionStore.open(store.path).labels.get(answer.id) == "first answer"
    renamed = await agent.conn.ext_method("pi/rename", {"sessionId": session, "name": "calc talk"})
    assert renamed == {"sessionName": "calc talk"}
    assert agent.client.of("session_info_update")[-1].title == "calc talk"
    listed = await agent.conn.list_sessions(cwd=str(agent.root))
    assert listed.sessions[0].title == "calc talk"


async def test_an_acp_session_has_the_same_context_in_the_cli_and_the_lsp_face(
    acp_agent: Any,
) -> None:
    agent = await acp_agent(_script())
    session = await _two_turns(agent)
    store = _store(agent, session)
    env = server_env(agent.agent_dir)
    printed = run_child(
        [sys.executable, "-m", "pi_lsp", "sessions", "context", str(store.path), "--json"],
        env=env,
        check=True,
    )
    assert json.loads(printed.stdout)["messages"] == store.context().messages
    from pytest_lsp import ClientServerConfig

    lsp = await ClientServerConfig(
        server_command=[sys.executable, "-m", "pi_lsp", "--stdio"], server_env=env
    ).start()
    try:
        from lsprotocol import types as T

        await asyncio.wait_for(
            lsp.initialize_session(
                T.InitializeParams(
                    capabilities=T.ClientCapabilities(),
                    root_uri=agent.root.as_uri(),
                    workspace_folders=[T.WorkspaceFolder(uri=agent.root.as_uri(), name="p")],
                )
            ),
            30,
        )
        state = await asyncio.wait_for(
            lsp.protocol.send_request_async("pi/session/open", {"path": str(store.path)}), 30
        )
        opened = state["sessionId"] if isinstance(state, dict) else state.sessionId
        assert opened == session
        messages = plain(
            await asyncio.wait_for(
                lsp.protocol.send_request_async("pi/session/messages", {"sessionId": session}), HANG
            )
        )
        got = [entry["message"] for entry in messages["entries"]]
        assert got == store.context().messages
        await asyncio.wait_for(lsp.shutdown_session(), 10)
    finally:
        await asyncio.wait_for(lsp.stop(), 10)


def _ids(updates: list[Any], kind: str, text: str | None = None) -> list[str | None]:
    return [
        u.message_id
        for u in updates
        if u.session_update == kind and (text is None or u.content.text == text)
    ]


async def test_live_chunks_carry_the_message_ids_the_replay_uses(acp_agent: Any) -> None:
    script = Script(turns=[Turn(reasoning="Thinking it over.", text="The answer is four.")])
    first = await acp_agent(script)
    await first.init(fs=False)
    session = await first.new()
    await first.conn.prompt(session_id=session, prompt=[text_block("2+2?")])
    live = [u for _, u in first.client.updates]
    [text_id] = set(_ids(live, "agent_message_chunk"))
    [thought_id] = set(_ids(live, "agent_thought_chunk"))
    # A thought and the reply are separate ACP messages, each with one id over all its chunks.
    assert text_id and thought_id and text_id != thought_id
    await first.conn.close_session(session_id=session)
    second = await acp_agent(fake=first.fake)
    await second.init(fs=False)
    await second.conn.load_session(cwd=str(second.root), session_id=session, mcp_servers=[])
    replayed = [u for _, u in second.client.updates]
    assert _ids(replayed, "agent_message_chunk") == [text_id]
    assert _ids(replayed, "agent_thought_chunk") == [thought_id]
    [user_id] = _ids(replayed, "user_message_chunk")
    assert user_id not in (text_id, thought_id)


async def test_branch_replays_the_new_active_branch(acp_agent: Any) -> None:
    agent = await acp_agent(_script())
    session = await _two_turns(agent)
    live = [u for _, u in agent.client.updates]
    store = _store(agent, session)
    answer = next(
        r
        for r in store.records
        if r.role == "assistant" and r.parent_id and store.get(r.parent_id).role == "toolResult"
    )
    before = len(agent.client.updates)
    moved = await agent.conn.ext_method("pi/branch", {"sessionId": session, "entryId": answer.id})
    assert moved["replayed"] is True and moved["leafId"] == answer.id
    redrawn = [u for _, u in agent.client.updates[before:]]
    texts = [u.content.text for u in redrawn if u.session_update == "agent_message_chunk"]
    assert texts == ["It adds."]  # the path up to the entry, not the branch left
    users = [u.content.text for u in redrawn if u.session_update == "user_message_chunk"]
    assert users == ["what does calc do?"]
    live_ids = list(dict.fromkeys(_ids(live, "agent_message_chunk")))  # "It adds.", "Second…"
    assert _ids(redrawn, "agent_message_chunk") == live_ids[:1]
    before = len(agent.client.updates)
    quiet = await agent.conn.ext_method(
        "pi/branch", {"sessionId": session, "entryId": answer.id, "replay": False}
    )
    assert quiet["replayed"] is False
    assert not any(u.session_update.endswith("_chunk") for _, u in agent.client.updates[before:])


async def test_sessions_live_where_the_session_dir_setting_puts_them(
    acp_agent: Any, tmp_path: Path
) -> None:
    """pi 1.6.0's ``sessionDir`` (agent settings file): new, list, load and resume all use it."""
    custom = tmp_path / "custom-sessions"
    agent = await acp_agent(_script(), settings={"sessionDir": str(custom)})
    session = await _two_turns(agent)
    assert [p.name.endswith(f"_{session}.jsonl") for p in custom.glob("*.jsonl")] == [True]
    assert not list(session_dir(str(agent.root), agent.agent_dir).glob("*.jsonl"))
    listed = await agent.conn.list_sessions(cwd=str(agent.root))
    assert [info.session_id for info in listed.sessions] == [session]
    everywhere = await agent.conn.list_sessions()
    assert [info.session_id for info in everywhere.sessions] == [session]
    await agent.conn.close_session(session_id=session)
    before = len(agent.client.updates)
    await agent.conn.load_session(cwd=str(agent.root), session_id=session, mcp_servers=[])
    assert len(agent.client.updates) > before  # found and replayed
    await agent.conn.close_session(session_id=session)
    await agent.conn.resume_session(cwd=str(agent.root), session_id=session, mcp_servers=[])

"""The daemon end to end: a session, a turn through litellm, events, tree and messages."""

from __future__ import annotations

from typing import Any

from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.session import SessionStore

READ_AND_ANSWER = Script(
    turns=[
        tool_turn("read", {"path": "calc.py"}, text="Reading."),
        Turn(text="It takes abs(a)."),
    ]
)


async def test_prompt_streams_events_and_persists(start: Any) -> None:
    editor = await start(READ_AND_ANSWER)
    state = await editor.request("pi/session/new", {})
    session = state["sessionId"]
    assert state["model"]["modelId"] == "fake-model" and state["isStreaming"] is False
    ack = await editor.request(
        "pi/session/prompt", {"sessionId": session, "text": "what is wrong?"}
    )
    assert ack["queued"] is False and len(ack["userEntryId"]) == 8
    await editor.wait_for("agent_end")
    kinds = [e["event"]["type"] for e in editor.events]
    assert kinds.count("message_update") >= 2 and "tool_execution_end" in kinds
    seqs = [e["seq"] for e in editor.events if e["sessionId"] == session]
    assert seqs == list(range(1, len(seqs) + 1))  # gap-free
    tree = await editor.request("pi/session/tree", {"sessionId": session})
    by_id = {n["id"]: n for n in tree["nodes"]}
    assert ack["userEntryId"] in by_id and by_id[ack["userEntryId"]]["role"] == "user"
    assert all(n["onActivePath"] for n in tree["nodes"])
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    roles = [e["message"]["role"] for e in messages["entries"] if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    state = await editor.request("pi/session/state", {"sessionId": session})
    assert state["leafId"] == tree["leafId"] and state["sessionFile"]
    stored = SessionStore.open(state["sessionFile"])
    assert stored.context().to_json()["messages"][-1]["content"][0]["text"] == "It takes abs(a)."
    listed = await editor.request("pi/sessions/list", {})
    assert [s["id"] for s in listed["sessions"]] == [session]

"""The daemon's tree operations: branch from a middle message, fork, label, compact, abort."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException

from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.session import SessionStore
from tests.deadlines import HANG

SUMMARY = "## Goal\nexplore\n\n## Progress\n### Done\n- [x] tried"


def summaries(body: dict[str, Any]) -> Turn | None:
    """Compaction and branch-summary requests carry a <conversation> block."""
    return Turn(text=SUMMARY) if "<conversation>" in json.dumps(body.get("messages")) else None


async def three_turns(start: Any, **settings: Any) -> tuple[Any, str, list[str]]:
    script = Script(
        turns=[Turn(text=f"answer {i} " + "x" * 300) for i in range(3)], default=Turn(text="more")
    )
    editor = await start(script, responder=summaries, settings=settings or None)
    session = await editor.new_session()
    users = []
    for i in range(3):
        ack = await editor.request(
            "pi/session/prompt", {"sessionId": session, "text": f"question {i}"}
        )
        users.append(ack["userEntryId"])
        await editor.wait_for("agent_end", i + 1)
    return editor, session, users


async def test_branch_from_a_middle_message_with_summary_and_label(start: Any) -> None:
    editor, session, users = await three_turns(start)
    result = await editor.request(
        "pi/session/branch",
        {"sessionId": session, "entryId": users[1], "summarize": True, "label": "retry here"},
    )
    assert result["editorText"] == "question 1" and result["moved"]
    tree = await editor.request("pi/session/tree", {"sessionId": session})
    nodes = {n["id"]: n for n in tree["nodes"]}
    summary = nodes[result["summaryEntryId"]]
    assert summary["type"] == "branch_summary" and summary["label"] == "retry here"
    assert summary["onActivePath"] and not nodes[users[2]]["onActivePath"]
    assert tree["leafId"] == result["leafId"]
    await editor.prompt(session, "question 1, again")
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    types = [
        e["type"] if e["type"] != "message" else e["message"]["role"] for e in messages["entries"]
    ]
    assert types == ["user", "assistant", "branch_summary", "user", "assistant"]
    appended = [e["event"] for e in editor.events if e["event"]["type"] == "entry_appended"]
    assert any(e["entry"]["id"] == result["summaryEntryId"] for e in appended)


async def test_label_set_and_clear_and_fork(start: Any) -> None:
    editor, session, users = await three_turns(start)
    label = await editor.request(
        "pi/session/label", {"sessionId": session, "entryId": users[0], "label": "start"}
    )
    tree = await editor.request("pi/session/tree", {"sessionId": session})
    assert {n["id"]: n["label"] for n in tree["nodes"]}[users[0]] == "start"
    assert label["labelEntryId"] in {n["id"] for n in tree["nodes"]}
    await editor.request(
        "pi/session/label", {"sessionId": session, "entryId": users[0], "label": None}
    )
    tree = await editor.request("pi/session/tree", {"sessionId": session})
    assert {n["id"]: n["label"] for n in tree["nodes"]}[users[0]] is None
    forked = await editor.request("pi/session/fork", {"sessionId": session, "entryId": users[2]})
    assert forked["editorText"] == "question 2"
    new = forked["session"]
    assert new["sessionId"] != session
    copy = SessionStore.open(new["sessionFile"])
    roles = [m["role"] for m in copy.context().messages]
    assert roles == ["user", "assistant", "user", "assistant"]  # ends just before question 2
    original = (await editor.request("pi/session/state", {"sessionId": session}))["sessionFile"]
    assert copy.header["parentSession"] == original


async def test_manual_compaction_reports_progress(start: Any) -> None:
    editor, session, _users = await three_turns(start, compaction={"keepRecentTokens": 10})
    result = await editor.request(
        "pi/session/compact", {"sessionId": session, "focus": "the answers"}
    )
    assert result["summary"].startswith("## Goal") and result["firstKeptEntryId"]
    kinds = [r.kind for reports in editor.client.progress_reports.values() for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    events = [e["event"]["type"] for e in editor.events]
    assert "compaction_start" in events and "compaction_end" in events
    focus_requests = [r for r in editor.fake.bodies if "the answers" in json.dumps(r["messages"])]
    assert focus_requests  # the focus reached the summary request
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    assert messages["entries"][0]["type"] == "compaction"


async def test_abort_mid_stream(start: Any) -> None:
    script = Script(turns=[Turn(text="streaming forever " * 50, chunk_size=3, hang_after=5)])
    editor = await start(script)
    session = await editor.new_session()
    await editor.request("pi/session/prompt", {"sessionId": session, "text": "go"})
    await editor.wait_for("message_update")
    state = await editor.request("pi/session/state", {"sessionId": session})
    assert state["isStreaming"] is True
    await editor.request("pi/session/abort", {"sessionId": session})
    await editor.wait_for("agent_end")
    state = await editor.request("pi/session/state", {"sessionId": session})
    assert state["isStreaming"] is False
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    last = messages["entries"][-1]["message"]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"
    assert await asyncio.to_thread(editor.fake.wait_for_disconnects, 1)


async def test_the_progress_cancel_button_stops_a_compaction(start: Any) -> None:
    def slow_summaries(body: dict[str, Any]) -> Turn | None:
        if "<conversation>" in json.dumps(body.get("messages")):
            return Turn(text=SUMMARY, response_delay=3600)  # only the cancel can end it
        return None

    script = Script(turns=[Turn(text=f"answer {i} " + "x" * 300) for i in range(3)])
    editor = await start(
        script, responder=slow_summaries, settings={"compaction": {"keepRecentTokens": 10}}
    )
    session = await editor.new_session()
    for i in range(3):
        await editor.request("pi/session/prompt", {"sessionId": session, "text": f"question {i}"})
        await editor.wait_for("agent_end", i + 1)
    before = (await editor.request("pi/session/state", {"sessionId": session}))["entryCount"]
    compaction = asyncio.ensure_future(editor.request("pi/session/compact", {"sessionId": session}))
    while not editor.client.progress_reports:
        await asyncio.sleep(0.02)
    (token,) = editor.client.progress_reports
    editor.client.window_work_done_progress_cancel(T.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcException) as failed:  # the summary would take an hour
        await asyncio.wait_for(compaction, HANG)
    assert "cancel" in failed.value.message.lower() or "abort" in failed.value.message.lower()
    state = await editor.request("pi/session/state", {"sessionId": session})
    assert state["entryCount"] == before  # nothing was appended

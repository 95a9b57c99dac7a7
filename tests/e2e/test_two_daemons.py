"""Two editors (two daemons) on one session file: turns never interleave.

Daemon A's second turn is held at the provider (the fake server's responder waits on an event),
so it is running for as long as the test needs; daemon B opens the same file meanwhile. Every
write B tries is refused with "busy in another process"; once A's turn has ended B sees A's
entries and takes its own turn, then A sees B's. The file stays one chain of valid lines.
"""

from __future__ import annotations

import threading
from typing import Any

from pi_lsp.daemon import errors
from pi_lsp.devtools.fake_script import Script, Turn, message_text
from tests.e2e.rpc_checks import (
    SLOW,
    assert_answers,
    assert_events_valid,
    assert_single_chain,
    call,
    exact_json,
    holding_slow_turns,
    read_session_file,
    rpc_error,
)
from tests.lsp_editor import Editor


def _texts(messages: dict[str, Any]) -> list[str]:
    """The text of each message entry of a ``pi/session/messages`` result."""
    return [message_text(e["message"]) for e in messages["entries"] if e["type"] == "message"]


async def _turn(editor: Editor, session: str, text: str) -> str:
    """Prompt and wait for the turn's end; returns the user entry id."""
    ends = len([e for e in editor.events if e["event"]["type"] == "agent_end"])
    ack = await call(editor, "pi/session/prompt", {"sessionId": session, "text": text})
    assert ack["queued"] is False
    await editor.wait_for("agent_end", count=ends + 1)
    return str(ack["userEntryId"])


async def test_a_second_daemon_is_refused_then_sees_the_turn_and_takes_its_own(
    start: Any,
) -> None:
    release = threading.Event()
    a_script = Script(turns=[Turn(text="First answer.")], default=Turn(text="Done, slowly."))
    try:
        a = exact_json(await start(a_script, responder=holding_slow_turns(release)))
        b = exact_json(await start(Script(default=Turn(text="B's answer."))))
        session = (await call(a, "pi/session/new", {}))["sessionId"]
        await _turn(a, session, "hello")  # the file exists once the first reply is stored
        path = (await assert_answers(a, session))["sessionFile"]

        ack = await call(a, "pi/session/prompt", {"sessionId": session, "text": SLOW})
        slow_user_entry = ack["userEntryId"]
        opened = await call(b, "pi/session/open", {"path": path})
        assert opened["sessionId"] == session and opened["isStreaming"] is False
        assert opened["leafId"] == slow_user_entry  # B read what A wrote so far

        busy = [
            ("pi/session/prompt", {"text": "me too"}),
            ("pi/session/rename", {"name": "B's name"}),
            ("pi/session/label", {"entryId": slow_user_entry, "label": "mine"}),
            ("pi/session/setThinkingLevel", {"level": "high"}),
            ("pi/session/branch", {"entryId": slow_user_entry}),
            ("pi/session/compact", {}),
        ]
        for method, params in busy:
            refused = await rpc_error(b, method, {"sessionId": session, **params})
            assert refused.code == errors.BUSY_ELSEWHERE, (method, refused.code, refused.message)
            assert "busy in another process" in refused.message, (method, refused.message)
        assert (await assert_answers(a, session))["isStreaming"] is True
    finally:
        release.set()

    await a.wait_for("agent_end", count=2)
    a_state = await assert_answers(a, session)
    assert a_state["isStreaming"] is False

    # B sees A's whole turn.
    b_tree = await call(b, "pi/session/tree", {"sessionId": session})
    assert b_tree["leafId"] == a_state["leafId"]
    assert {n["id"] for n in b_tree["nodes"]} >= {slow_user_entry, a_state["leafId"]}
    b_messages = await call(b, "pi/session/messages", {"sessionId": session})
    assert _texts(b_messages) == ["hello", "First answer.", SLOW, "Done, slowly."]

    # B's turn now runs, and A sees it (as entries another process appended).
    b_user_entry = await _turn(b, session, "my turn")
    b_state = await assert_answers(b, session)
    a_tree = await call(a, "pi/session/tree", {"sessionId": session})
    assert a_tree["leafId"] == b_state["leafId"]
    external = {
        e["event"]["entry"]["id"]
        for e in a.events
        if e["event"]["type"] == "entry_appended" and e["event"]["external"]
    }
    assert {b_user_entry, b_state["leafId"]} <= external
    a_messages = await call(a, "pi/session/messages", {"sessionId": session})
    assert _texts(a_messages)[-2:] == ["my turn", "B's answer."]

    # And A can take the next turn, continuing from B's entries.
    await _turn(a, session, "back to A")

    entries = assert_single_chain(read_session_file(path))
    texts = [message_text(e["message"]) for e in entries if e["type"] == "message"]
    assert texts == [
        "hello",
        "First answer.",
        SLOW,
        "Done, slowly.",
        "my turn",
        "B's answer.",
        "back to A",
        "Done, slowly.",
    ]
    assert_events_valid(a, b)

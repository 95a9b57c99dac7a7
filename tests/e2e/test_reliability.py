"""Reliability of the real daemon: bad params, unknown ids, errors never stop it, exit and kill.

Every error is checked for its JSON-RPC code and for a message that names what was wrong, and
after each one the daemon must still answer ``pi/session/state``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.protocol import errors
from pi_lsp.protocol.methods import METHODS
from tests.e2e.conftest import Editor
from tests.e2e.rpc_checks import (
    assert_answers,
    assert_events_valid,
    call,
    exact_json,
    rpc_error,
)

INVALID_PARAMS = -32602
GREETING = Script(turns=[Turn(text="Hello there.")], default=Turn(text="Again."))


async def _session_with_a_turn(editor: Editor, text: str = "hi") -> tuple[str, dict[str, Any]]:
    """A new session with one finished turn; returns its id and the prompt's answer."""
    state = await call(editor, "pi/session/new", {})
    session = state["sessionId"]
    ends = len(_ends(editor))
    ack = await call(editor, "pi/session/prompt", {"sessionId": session, "text": text})
    await editor.wait_for("agent_end", count=ends + 1)
    return session, ack


def _ends(editor: Editor) -> list[dict[str, Any]]:
    return [e for e in editor.events if e["event"]["type"] == "agent_end"]


async def _until_idle(editor: Editor, session: str, timeout: float = 20) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        state = await assert_answers(editor, session)
        if not state["isStreaming"]:
            return state
        assert asyncio.get_running_loop().time() < deadline, f"still streaming: {state}"
        await asyncio.sleep(0.05)


# ----------------------------------------------------------------- invalid params


def _invalid_cases(session: str) -> list[tuple[str, Any, list[str]]]:
    """``(method, params, words the message must contain)``."""
    return [
        ("pi/session/state", {}, ["sessionId", "required"]),
        ("pi/session/state", None, ["sessionId", "required"]),
        ("pi/session/state", {"sessionId": 42}, ["sessionId", "string"]),
        ("pi/session/state", {"sessionId": None}, ["sessionId", "string"]),
        ("pi/session/state", {"sessionId": ""}, ["sessionId", "at least 1"]),
        ("pi/session/state", {"sessionId": ["a"]}, ["sessionId"]),
        ("pi/session/state", [session], ["params", "dictionary"]),
        ("pi/session/state", "oops", ["params", "dictionary"]),
        ("pi/session/tree", {"sessionid": session}, ["sessionId", "required"]),
        ("pi/session/messages", {"sessionId": 1.5}, ["sessionId", "string"]),
        ("pi/session/abort", {"sessionId": True}, ["sessionId", "string"]),
        ("pi/session/close", {}, ["sessionId", "required"]),
        ("pi/session/prompt", {"sessionId": session}, ["text", "required"]),
        ("pi/session/prompt", {"sessionId": session, "text": 7}, ["text", "string"]),
        ("pi/session/prompt", {"sessionId": session, "text": None}, ["text"]),
        (
            "pi/session/prompt",
            {"sessionId": session, "text": "x", "streamingBehavior": "later"},
            ["streamingBehavior", "'steer'"],
        ),
        (
            "pi/session/prompt",
            {"sessionId": session, "text": "x", "images": [{"data": 1}]},
            ["images.0.data", "images.0.mimeType"],
        ),
        ("pi/session/prompt", {"sessionId": session, "text": "x", "images": "img"}, ["images"]),
        ("pi/session/steer", {"sessionId": session, "text": {"a": 1}}, ["text"]),
        ("pi/session/followUp", {"text": "later"}, ["sessionId"]),
        ("pi/session/rename", {"sessionId": session, "name": ""}, ["name", "at least 1"]),
        ("pi/session/rename", {"sessionId": session}, ["name", "required"]),
        ("pi/session/setThinkingLevel", {"sessionId": session, "level": "max"}, ["level", "'off'"]),
        ("pi/session/setThinkingLevel", {"sessionId": session, "level": 3}, ["level"]),
        ("pi/session/setThinkingLevel", {"sessionId": session}, ["level", "required"]),
        ("pi/session/setModel", {"sessionId": session, "model": "x"}, ["model", "at least 3"]),
        ("pi/session/branch", {"sessionId": session, "entryId": ""}, ["entryId"]),
        (
            "pi/session/branch",
            {"sessionId": session, "entryId": "abcd1234", "summarize": "maybe"},
            ["summarize", "boolean"],
        ),
        ("pi/session/branch", {"sessionId": session, "entryId": "x", "focus": 1}, ["focus"]),
        ("pi/session/fork", {"sessionId": session}, ["entryId", "required"]),
        ("pi/session/label", {"sessionId": session, "entryId": "x", "label": 5}, ["label"]),
        ("pi/session/compact", {"sessionId": session, "focus": ["x"]}, ["focus"]),
        ("pi/session/open", {}, ["path", "required"]),
        ("pi/session/open", {"path": ""}, ["path", "at least 1"]),
        ("pi/session/open", {"path": "/x.jsonl", "folder": 1}, ["folder"]),
        ("pi/sessions/list", {"folder": 3}, ["folder", "string"]),
        ("pi/session/new", {"folder": {"uri": "file:///"}}, ["folder"]),
        ("pi/models/list", {"folder": False}, ["folder"]),
        # Two problems at once: both are named.
        ("pi/session/setThinkingLevel", {"level": "max"}, ["sessionId", "level"]),
    ]


async def test_invalid_params_name_the_field_and_the_daemon_keeps_answering(start: Any) -> None:
    editor = exact_json(await start(GREETING))
    session, _ = await _session_with_a_turn(editor)
    cases = _invalid_cases(session)
    methods_covered = {method for method, _, _ in cases}
    assert methods_covered == {m.name for m in METHODS}
    wrong: list[str] = []
    for method, params, words in cases:
        error = await rpc_error(editor, method, params)
        if error.code != INVALID_PARAMS or not all(w in error.message for w in words):
            wrong.append(f"{method} {params!r}: {error.code} {error.message!r}, wanted {words}")
        await assert_answers(editor, session)
    assert not wrong, "\n".join(wrong)
    assert_events_valid(editor)


async def test_extra_fields_are_ignored(start: Any) -> None:
    editor = exact_json(await start(GREETING))
    session, _ = await _session_with_a_turn(editor)
    junk = {"junk": {"nested": [1, None]}, "sessionID": 5, "": "", "🦀": "crab"}
    state = await call(editor, "pi/session/state", {"sessionId": session, **junk})
    assert state["sessionId"] == session
    tree = await call(editor, "pi/session/tree", {"sessionId": session, "depth": -1, **junk})
    assert len(tree["nodes"]) == state["entryCount"]
    thinking = await call(
        editor,
        "pi/session/setThinkingLevel",
        {"sessionId": session, "level": "off", "why": "junk", **junk},
    )
    assert thinking["thinkingLevel"] == "off"
    assert_events_valid(editor)


# ----------------------------------------------------------------- unknown ids


def _minimal_params(method: str, session: str) -> dict[str, Any]:
    """Valid params for ``method`` apart from the ids the test varies."""
    extra: dict[str, dict[str, Any]] = {
        "pi/session/rename": {"name": "n"},
        "pi/session/prompt": {"text": "t"},
        "pi/session/steer": {"text": "t"},
        "pi/session/followUp": {"text": "t"},
        "pi/session/branch": {"entryId": "abcd1234"},
        "pi/session/fork": {"entryId": "abcd1234"},
        "pi/session/label": {"entryId": "abcd1234", "label": "l"},
        "pi/session/setModel": {"model": "openai/fake-model"},
        "pi/session/setThinkingLevel": {"level": "low"},
    }
    return {"sessionId": session, **extra.get(method, {})}


async def test_unknown_session_is_a_clear_error_for_every_session_method(start: Any) -> None:
    editor = exact_json(await start(GREETING))
    session, _ = await _session_with_a_turn(editor)
    session_methods = [m.name for m in METHODS if "sessionId" in m.params.model_fields]
    assert len(session_methods) >= 14
    for method in session_methods:
        params = _minimal_params(method, "no-such-session")
        error = await rpc_error(editor, method, params)
        assert error.code == errors.UNKNOWN_SESSION, (method, error.code, error.message)
        assert "Unknown session" in error.message and "no-such-session" in error.message, (
            method,
            error.message,
        )
        await assert_answers(editor, session)
    # A closed session is unknown too.
    closed = (await call(editor, "pi/session/new", {}))["sessionId"]
    assert await call(editor, "pi/session/close", {"sessionId": closed}) == {}
    error = await rpc_error(editor, "pi/session/state", {"sessionId": closed})
    assert error.code == errors.UNKNOWN_SESSION and closed in error.message
    assert_events_valid(editor)


async def test_unknown_entry_is_a_clear_error(start: Any) -> None:
    editor = exact_json(await start(GREETING))
    session, _ = await _session_with_a_turn(editor)
    before = await assert_answers(editor, session)
    for method in ("pi/session/branch", "pi/session/fork", "pi/session/label"):
        params = {**_minimal_params(method, session), "entryId": "nope1234"}
        error = await rpc_error(editor, method, params)
        assert error.code == errors.UNKNOWN_ENTRY, (method, error.code, error.message)
        assert "nope1234" in error.message and "not found" in error.message, error.message
        after = await assert_answers(editor, session)
        assert after["leafId"] == before["leafId"] and after["entryCount"] == before["entryCount"]
    branch = {"sessionId": session, "entryId": "nope1234", "summarize": True, "label": "x"}
    error = await rpc_error(editor, "pi/session/branch", branch)
    assert error.code == errors.UNKNOWN_ENTRY, error.message
    assert_events_valid(editor)


async def test_unknown_folder_and_session_file(start: Any, tmp_path: Any) -> None:
    editor = exact_json(await start(GREETING))
    closed, _ = await _session_with_a_turn(editor)
    closed_file = (await assert_answers(editor, closed))["sessionFile"]
    assert await call(editor, "pi/session/close", {"sessionId": closed}) == {}
    session, _ = await _session_with_a_turn(editor)
    elsewhere = (tmp_path / "elsewhere").as_uri()
    for method, params in [
        ("pi/sessions/list", {"folder": elsewhere}),
        ("pi/session/new", {"folder": elsewhere}),
        ("pi/models/list", {"folder": elsewhere}),
        ("pi/session/open", {"path": closed_file, "folder": elsewhere}),
    ]:
        error = await rpc_error(editor, method, params)
        assert error.code == errors.UNKNOWN_FOLDER, (method, error.code, error.message)
        assert "Unknown workspace folder" in error.message and elsewhere in error.message
        await assert_answers(editor, session)
    missing = tmp_path / "missing.jsonl"
    error = await rpc_error(editor, "pi/session/open", {"path": str(missing)})
    assert error.code == errors.SESSION_FILE and str(missing) in error.message, error.message
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("this is not a session\n{]\n")
    error = await rpc_error(editor, "pi/session/open", {"path": str(garbage)})
    assert error.code == errors.SESSION_FILE, (error.code, error.message)
    error = await rpc_error(editor, "pi/session/open", {"path": str(tmp_path)})
    assert error.code == errors.SESSION_FILE, (error.code, error.message)
    await assert_answers(editor, session)
    assert_events_valid(editor)

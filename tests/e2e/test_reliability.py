"""Reliability of the real daemon: bad params, unknown ids, errors never stop it, exit and kill.

Every error is checked for its JSON-RPC code and for a message that names what was wrong, and
after each one the daemon must still answer ``pi/session/state``. The error tests share one
daemon (module scope: each daemon imports litellm, seconds on a busy machine); the exit, kill
and settings tests start their own.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as T

from pi_lsp.daemon import errors
from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_script import Script, ScriptUsage, Turn
from pi_lsp.protocol.methods import METHODS
from tests.deadlines import HANG
from tests.e2e.rpc_checks import (
    assert_answers,
    assert_events_valid,
    assert_single_chain,
    call,
    daemon,
    exact_json,
    forget_server,
    killed_on_failure,
    read_session_file,
    rpc_error,
    server_pid,
    wait_process_exit,
)
from tests.lsp_editor import Editor

INVALID_PARAMS = -32602
GREETING = Script(turns=[Turn(text="Hello there.")], default=Turn(text="Again."))
shared_loop = pytest.mark.asyncio(loop_scope="module")
"""For tests using the module's :func:`shared` daemon (its client lives on the module loop)."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Editor, str]]:
    """One daemon for the error tests, with a session that has one finished turn."""
    root, agent_dir = tmp_path_factory.mktemp("project"), tmp_path_factory.mktemp("agent")
    async with daemon(root, agent_dir, GREETING) as editor:
        session, _ = await _session_with_a_turn(editor)
        yield editor, session


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


async def _until_idle(editor: Editor, session: str, timeout: float = HANG) -> dict[str, Any]:
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
        (
            "pi/session/setThinkingLevel",
            {"sessionId": session, "level": "ultra"},
            ["level", "'off'"],
        ),
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
        ("pi/session/setThinkingLevel", {"level": "ultra"}, ["sessionId", "level"]),
    ]


@shared_loop
async def test_invalid_params_name_the_field_and_the_daemon_keeps_answering(
    shared: tuple[Editor, str],
) -> None:
    editor, session = shared
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


@shared_loop
async def test_extra_fields_are_ignored(shared: tuple[Editor, str]) -> None:
    editor, session = shared
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


@shared_loop
async def test_unknown_session_is_a_clear_error_for_every_session_method(
    shared: tuple[Editor, str],
) -> None:
    editor, session = shared
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


@shared_loop
async def test_unknown_entry_is_a_clear_error(shared: tuple[Editor, str]) -> None:
    editor, session = shared
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


@shared_loop
async def test_unknown_folder_and_session_file(shared: tuple[Editor, str], tmp_path: Path) -> None:
    editor, session = shared
    closed, _ = await _session_with_a_turn(editor)
    closed_file = (await assert_answers(editor, closed))["sessionFile"]
    assert await call(editor, "pi/session/close", {"sessionId": closed}) == {}
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


@shared_loop
async def test_huge_values_give_short_errors_and_the_daemon_keeps_answering(
    shared: tuple[Editor, str],
) -> None:
    editor, session = shared
    huge = "🦀" * 20_000  # 80 KB of UTF-8
    with killed_on_failure(editor):
        for method, params, code in [
            ("pi/sessions/list", {"folder": huge}, errors.UNKNOWN_FOLDER),
            ("pi/session/state", {"sessionId": huge}, errors.UNKNOWN_SESSION),
            ("pi/session/open", {"path": "/" + huge}, errors.SESSION_FILE),
            ("pi/session/label", {"sessionId": session, "entryId": huge}, errors.UNKNOWN_ENTRY),
            (
                "pi/session/prompt",
                {"sessionId": session, "text": "x", "images": [1] * 5000},
                -32602,
            ),
        ]:
            error = await rpc_error(editor, method, params)
            assert error.code == code, (method, error.code, error.message[:200])
            assert len(error.message) < 1100 and "characters)" in error.message, error.message[-80:]
        # The daemon logs every error; before messages were bounded, one 80 KB log line stopped
        # the test client's stderr reader, the pipe filled and the daemon blocked on its log.
        for _ in range(300):
            await rpc_error(editor, "pi/session/state", {"sessionId": "nope"})
        await assert_answers(editor, session)
    assert_events_valid(editor)


# ----------------------------------------------------------------- exit, kill -9


HANGING_STREAM = Turn(text="A partial answer that never ends", chunk_size=4, hang_after=4)
"""Streams a few chunks, then holds the connection open until the client goes away."""
HANGING_TOOL = tool_turn("bash", {"command": "sleep 60", "timeout": 120}, text="Running it.")
"""A tool call that runs for a minute."""


async def _two_daemons_mid_turn(start: Any, hang: Turn) -> tuple[Editor, Editor, str, str]:
    """Daemon A runs a hanging turn on a session that daemon B has open too.

    Returns ``(a, b, session id, session file)`` once B's prompt has been refused.
    """
    a = exact_json(
        await start(
            Script(turns=[Turn(text="First answer."), hang]),
            settings={"permissions": {"bash": "allow"}},
        )
    )
    session, _ = await _session_with_a_turn(a)  # the file exists once the first reply is stored
    path = (await assert_answers(a, session))["sessionFile"]
    b = exact_json(await start(Script(default=Turn(text="B's answer."))))
    opened = await call(b, "pi/session/open", {"path": path})
    assert opened["sessionId"] == session and opened["isStreaming"] is False
    await call(a, "pi/session/prompt", {"sessionId": session, "text": "take your time"})
    if hang.hang_after is not None:
        await a.wait_for("message_update", count=3)
    else:
        await a.wait_for("tool_execution_start")
    refused = await rpc_error(b, "pi/session/prompt", {"sessionId": session, "text": "me too"})
    assert refused.code == errors.BUSY_ELSEWHERE, (refused.code, refused.message)
    assert "busy in another process" in refused.message
    return a, b, session, path


async def _b_takes_the_turn(b: Editor, session: str, path: str) -> list[dict[str, Any]]:
    """B's prompt now succeeds, its turn ends, and the file is one valid chain."""
    ends = len(_ends(b))
    ack = await call(b, "pi/session/prompt", {"sessionId": session, "text": "me too"})
    assert ack["queued"] is False and ack["userEntryId"]
    await b.wait_for("agent_end", count=ends + 1)
    await _until_idle(b, session)
    entries = assert_single_chain(read_session_file(path))
    assert entries[-1]["message"]["content"][0]["text"] == "B's answer."
    return entries


async def test_exit_aborts_a_streaming_turn_and_releases_the_lock(start: Any) -> None:
    a, b, session, path = await _two_daemons_mid_turn(start, HANGING_STREAM)
    await asyncio.wait_for(a.client.shutdown_session(), 10)  # shutdown + exit, process gone
    forget_server(a, "the test shut the daemon down")
    assert a.client._server is not None and a.client._server.returncode == 0
    lines = read_session_file(path)
    last = lines[-1]
    assert last["type"] == "message" and last["message"]["role"] == "assistant", last
    assert last["message"]["stopReason"] == "aborted", last["message"]
    entries = await _b_takes_the_turn(b, session, path)
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    # A's first turn, A's aborted turn, B's turn.
    assert roles == ["user", "assistant"] * 3, roles
    assert_events_valid(a, b)


async def test_exit_during_a_tool_call_leaves_every_call_answered(start: Any) -> None:
    a, b, session, path = await _two_daemons_mid_turn(start, HANGING_TOOL)
    await asyncio.wait_for(a.client.shutdown_session(), 10)
    forget_server(a, "the test shut the daemon down")
    messages = [
        line["message"] for line in read_session_file(path)[1:] if line["type"] == "message"
    ]
    calls = [
        part["id"]
        for m in messages
        if m["role"] == "assistant"
        for part in m["content"]
        if part["type"] == "toolCall"
    ]
    answered = [m["toolCallId"] for m in messages if m["role"] == "toolResult"]
    assert calls and sorted(calls) == sorted(answered), (calls, answered)
    await _b_takes_the_turn(b, session, path)
    assert_events_valid(a, b)


async def test_kill_9_mid_turn_releases_the_lock(start: Any) -> None:
    a, b, session, path = await _two_daemons_mid_turn(start, HANGING_STREAM)
    os.kill(server_pid(a), signal.SIGKILL)
    assert await wait_process_exit(a, 10) == -signal.SIGKILL
    forget_server(a, "the test killed the daemon")
    read_session_file(path)  # whatever was written is whole lines
    entries = await _b_takes_the_turn(b, session, path)
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    # A's first turn, A's prompt (killed before any reply was stored), B's turn.
    assert roles == ["user", "assistant", "user", "user", "assistant"], roles
    assert_events_valid(a, b)


async def test_kill_9_before_the_first_reply_keeps_the_acknowledged_prompt(start: Any) -> None:
    # A new session: the daemon answered the prompt with its entry id, then died before any
    # reply. The file must already hold the header and that user message (issue 9 item 10).
    a = exact_json(await start(Script(turns=[HANGING_STREAM])))
    state = await call(a, "pi/session/new", {})
    ack = await call(a, "pi/session/prompt", {"sessionId": state["sessionId"], "text": "keep me"})
    assert ack["queued"] is False and ack["userEntryId"]
    path = state["sessionFile"]
    os.kill(server_pid(a), signal.SIGKILL)
    assert await wait_process_exit(a, 10) == -signal.SIGKILL
    forget_server(a, "the test killed the daemon")
    header, *entries = read_session_file(path)
    assert header["type"] == "session" and header["id"] == state["sessionId"]
    assert ack["userEntryId"] in [e["id"] for e in entries]
    user = next(e for e in entries if e["id"] == ack["userEntryId"])
    assert user["message"]["content"][0]["text"] == "keep me"
    assert_events_valid(a)


# ----------------------------------------------------------------- settings


async def test_bad_settings_warn_and_the_default_applies(start: Any) -> None:
    script = Script(
        turns=[Turn(text="A long answer.", usage=ScriptUsage(prompt_tokens=5000))],
        default=Turn(text="## Goal\nSummarized."),
    )
    settings = {
        "compaction": {"reserveTokens": "lots"},
        "models": {"openai/fake-model": {"contextWindow": 20_000}},
    }
    editor = exact_json(await start(script, settings=settings))
    # Sent while pygls handles `initialize`, which may come after the early answer to it.
    for _ in range(500):
        if editor.client.messages:
            break
        await asyncio.sleep(0.02)
    (warning,) = editor.client.messages
    assert warning.type == T.MessageType.Warning
    assert "1 setting(s) ignored" in warning.message, warning.message
    assert "compaction.reserveTokens" in warning.message
    assert "16384" in warning.message  # the default used instead
    logged = [m.message for m in editor.client.log_messages if "reserveTokens" in m.message]
    assert len(logged) == 1, logged
    session = (await call(editor, "pi/session/new", {}))["sessionId"]
    await call(editor, "pi/session/prompt", {"sessionId": session, "text": "hi"})
    # 5007 tokens used of a 20000 window: above the threshold only with the default reserve
    # (20000 - 16384 = 3616), so automatic compaction must start.
    (start_event,) = await editor.wait_for("auto_compaction_start")
    assert start_event["event"]["reason"] == "threshold"
    await editor.wait_for("auto_compaction_end")
    await _until_idle(editor, session)
    assert_events_valid(editor)


@shared_loop
async def test_text_that_is_not_unicode_is_refused_or_carried(
    shared: tuple[Editor, str], tmp_path: Path
) -> None:
    editor, _ = shared
    session, _ = await _session_with_a_turn(editor)
    # From an editor: a lone surrogate (JSON's "\ud83d" escape) is invalid params, never stored.
    # Before the check, such a prompt was stored and then broke the session's tree and events.
    for method, params, field in [
        ("pi/session/prompt", {"text": "half an emoji \ud83d"}, "text"),
        ("pi/session/steer", {"text": "\udcff"}, "text"),
        ("pi/session/rename", {"name": "x\ud800"}, "name"),
        (
            "pi/session/prompt",
            {"text": "ok", "images": [{"data": "\ud800", "mimeType": "a"}]},
            "images.0.data",
        ),
    ]:
        error = await rpc_error(editor, method, {"sessionId": session, **params})
        # Constrained fields are refused by pydantic ("unable to parse raw data as a unicode
        # string"), the others by the daemon's own check; both name the field.
        assert error.code == INVALID_PARAMS and f"{field}: " in error.message, (
            method,
            error.message,
        )
    ignored = await call(editor, "pi/session/state", {"sessionId": session, "junk": "\ud800"})
    assert ignored["sessionId"] == session
    # From a session file: pi (JavaScript) writes a lone surrogate as that escape, and such a
    # session still opens, answers and streams events without gaps. (A copy of this session
    # under a new id, so the stream of the open one is left alone.)
    source = Path((await assert_answers(editor, session))["sessionFile"])
    header, *entries = read_session_file(source)
    header["id"] = str(uuid.uuid4())
    broken = {
        "type": "session_info",
        "id": "5e55f00d",
        "parentId": entries[-1]["id"],
        "timestamp": entries[-1]["timestamp"],
        "name": "half an emoji \ud83d",
    }
    path = tmp_path / "written-by-pi.jsonl"
    # json.dumps escapes the surrogate as "\\ud83d", as JSON.stringify does.
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *entries, broken]))
    opened = await call(editor, "pi/session/open", {"path": str(path)})
    assert opened["sessionName"] == "half an emoji \ud83d"
    reopened = opened["sessionId"]
    tree = await call(editor, "pi/session/tree", {"sessionId": reopened})
    assert tree["leafId"] == "5e55f00d"
    await call(editor, "pi/session/messages", {"sessionId": reopened})
    ends = len(_ends(editor))
    await call(editor, "pi/session/prompt", {"sessionId": reopened, "text": "still here?"})
    await editor.wait_for("agent_end", count=ends + 1)
    await _until_idle(editor, reopened)
    named = [
        e
        for e in editor.events
        if e["event"]["type"] == "state_changed"
        and e["event"]["state"]["sessionName"] == "half an emoji \ud83d"
    ]
    assert named
    assert_events_valid(editor)

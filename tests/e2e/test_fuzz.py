"""1,000 random ``pi/…`` calls against one real daemon (hypothesis).

How hypothesis and asyncio meet here (pytest-asyncio 1.x): the test is an ordinary async test
that owns the daemon (the ``start`` fixture, on the test's event loop). The hypothesis-driven
function is synchronous and runs in a worker thread (``asyncio.to_thread``), so the loop stays
free; each call it makes is scheduled back onto the loop with ``run_coroutine_threadsafe``. Calls
are drawn with ``st.data()`` one at a time, because the ids worth drawing (sessions, entries,
files) come from earlier answers. 100 examples × 10 calls, each example sent either one by one
or all at once, against the same daemon; the database is off (a stateful daemon makes replays
meaningless) and there is no deadline (turns run in the background).

Every answer must be a result valid against the method's result schema, or a JSON-RPC error
with a known code: invalid params, or one of the daemon's domain errors. An internal error
(-32603, an unexpected exception in a handler) or no answer within the timeout fails the test.
Afterwards the daemon still answers, every event fits the event schema with gap-free ``seq``, and
every session file the daemon wrote is valid line by line.
"""

from __future__ import annotations

import asyncio
import string
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pygls.exceptions import JsonRpcException

from pi_lsp.daemon import errors
from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from pi_lsp.protocol.methods import METHODS
from tests.e2e.rpc_checks import (
    CALL_TIMEOUT,
    assert_answers,
    assert_events_valid,
    call,
    exact_json,
    killed_on_failure,
    read_session_file,
    schema_errors,
    schema_name,
)
from tests.lsp_editor import Editor

EXAMPLES = 53
"""Each example calls every method once (19 calls): 1,007 calls in all."""
KNOWN_CODES = {
    -32602,  # invalid params
    errors.UNKNOWN_SESSION,
    errors.UNKNOWN_ENTRY,
    errors.BUSY_ELSEWHERE,
    errors.BUSY,
    errors.NO_MODEL,
    errors.COMPACTION,
    errors.SESSION_FILE,
    errors.UNKNOWN_FOLDER,
    errors.INVALID_REQUEST,
}
REPLY = Turn(text="A fuzzed reply, streamed in a few chunks.", chunk_size=8, chunk_delay=0.002)
LOOK = tool_turn("read", {"path": "calc.py"}, text="Looking.")


def _reply(body: JsonObject) -> Turn | None:
    """A tool call for some prompts (then a text answer), plain text for the rest."""
    last = body["messages"][-1]
    if last.get("role") == "user" and len(message_text(last)) % 3 == 0:
        return LOOK
    return REPLY


@dataclass
class Known:
    """Ids and paths seen in answers so far (the interesting values to draw)."""

    sessions: list[str] = field(default_factory=list)
    entries: dict[str, list[str]] = field(default_factory=dict)
    """Entry ids by session id."""
    paths: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)

    def all_entries(self) -> list[str]:
        return [entry for ids in self.entries.values() for entry in ids]

    def learn_events(self, events: list[dict[str, Any]], start: int) -> int:
        """Add the entries of ``entry_appended`` events from ``start``; returns the new start."""
        end = len(events)
        for notification in events[start:end]:
            event = notification["event"]
            if event["type"] == "entry_appended":
                _add(self.entries.setdefault(notification["sessionId"], []), event["entry"]["id"])
        return end

    def learn(self, result: Any, session: Any) -> None:
        """Pick ids out of any result (``session``: the request's ``sessionId``)."""
        if not isinstance(result, dict):
            return
        for state in (result, result.get("session")):
            if isinstance(state, dict) and "sessionId" in state:
                session = state["sessionId"]
                _add(self.sessions, session)
                _add(self.paths, state.get("sessionFile"))
                _add(self.entries.setdefault(session, []), state.get("leafId"))
        if not isinstance(session, str):
            return
        ids = self.entries.setdefault(session, [])
        for key in ("userEntryId", "labelEntryId", "summaryEntryId", "leafId"):
            _add(ids, result.get(key))
        for node in result.get("nodes") or []:
            _add(ids, node.get("id"))
        for entry in result.get("entries") or []:
            _add(ids, entry.get("id"))


def _add(bucket: list[str], value: Any) -> None:
    if isinstance(value, str) and value not in bucket:
        bucket.append(value)


# ----------------------------------------------------------------- strategies

HUGE = st.sampled_from(["x" * 50_000, "🦀" * 20_000, "line\n" * 10_000])
WEIRD_TEXT = st.sampled_from(["", " ", "\x00", "\ud800 lone surrogate", "\u202e\u200b", "\r\n"])
TEXT = st.one_of(st.text(max_size=40), WEIRD_TEXT, HUGE)
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just({"jsonrpc": "2.0", "method": "pi/session/state", "params": {}}),
    st.just({"jsonrpc": "2.0", "id": 1, "result": None}),
)
"""Values of the wrong type (or a right type with odd content)."""
ENTRY_IDS = st.one_of(
    st.just("nope1234"), st.text(alphabet=string.hexdigits.lower(), min_size=8, max_size=8)
)
LEVELS = st.sampled_from(["off", "minimal", "low", "medium", "high", "xhigh"])
MODELS = st.sampled_from(["openai/fake-model", "openai/other-model", "fake-model", "nope/x"])
IMAGES = st.lists(
    st.fixed_dictionaries(
        {"data": st.sampled_from(["iVBORw0KGgo=", "not base64!"]), "mimeType": st.just("image/png")}
    ),
    max_size=2,
)


SANE_TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)


def _value(
    name: str, known: Known, tmp: Path, params: dict[str, Any], *, valid: bool, entry: bool
) -> st.SearchStrategy[Any]:
    """A value for a params field: often a real id, else a made-up one.

    ``valid``: real ids whenever some are known (a session with a few turns, or at least some
    entries when the method takes an ``entry`` too) and ordinary text, so the call can succeed.
    """
    text = SANE_TEXT if valid else TEXT
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "sessionId": st.uuids().map(str),
        "entryId": ENTRY_IDS,
        "text": text,
        "name": text,
        "focus": st.one_of(st.none(), text),
        "label": st.one_of(st.none(), text),
        "level": LEVELS,
        "model": MODELS,
        "summarize": st.booleans(),
        "streamingBehavior": st.sampled_from([None, "steer", "followUp"]),
        "images": IMAGES,
        "folder": st.sampled_from([None, tmp.as_uri(), "file:///nowhere"]),
        "path": st.one_of(
            st.sampled_from(["garbage.jsonl", "empty.jsonl", "missing.jsonl", "."]).map(
                lambda p: str(tmp / p)
            ),
            st.text(alphabet=string.ascii_letters + "/._-", max_size=20).map(
                lambda p: str(tmp / "nowhere" / p.replace("..", "_").lstrip("/"))
            ),
        ),
    }

    def real() -> list[str]:
        if name == "entryId":  # an entry of the request's session when there is one
            session = params.get("sessionId")
            mine = known.entries.get(session, []) if isinstance(session, str) else []
            return mine or known.all_entries()
        if name == "sessionId" and valid:  # sessions with a few turns (compaction needs two)
            grown = [s for s in known.sessions if len(known.entries.get(s, ())) >= 6]
            some = [s for s in known.sessions if known.entries.get(s)]
            return grown or (some if entry else []) or known.sessions
        return {
            "sessionId": known.sessions,
            "path": known.paths,
            "folder": known.folders,
        }.get(name, [])

    def pick(drawn: tuple[int, int, Any]) -> Any:
        ids = real()
        return ids[drawn[1] % len(ids)] if ids and (valid or drawn[0] < 4) else drawn[2]

    # The same draws whatever is known (hypothesis requires it): a choice (4 in 5 for a known
    # value), an index, a made-up value; what is known only decides which becomes the value.
    return st.tuples(st.integers(0, 4), st.integers(0, 1 << 16), plausible.get(name, TEXT)).map(
        pick
    )


def _params(data: st.DataObject, method: Any, known: Known, tmp: Path) -> Any:
    """Params for ``method``: a valid call, fields some of them missing or junk, or junk."""
    kinds = ["valid"] * 4 + ["fields"] * 6 + ["junk", "empty"]
    kind = data.draw(st.sampled_from(kinds), label="params kind")
    if kind == "junk":
        return data.draw(JUNK, label="params")
    if kind == "empty":
        return {}
    params: dict[str, Any] = {}
    fields = method.params.model_fields
    entry = "entryId" in fields
    for name in fields:  # sessionId comes first, entryId after it
        if kind == "valid":
            value = _value(name, known, tmp, params, valid=True, entry=entry)
            params[name] = data.draw(value, label=name)
            continue
        choice = data.draw(st.sampled_from(["good"] * 10 + ["omit", "junk"]), label=name)
        if choice == "good":
            value = _value(name, known, tmp, params, valid=False, entry=entry)
            params[name] = data.draw(value, label=name)
        elif choice == "junk":
            params[name] = data.draw(JUNK, label=name)
    if data.draw(st.booleans(), label="extra field"):
        params[data.draw(st.text(max_size=8), label="extra name")] = data.draw(JUNK)
    return params


# ----------------------------------------------------------------- the test


@dataclass
class Tally:
    calls: int = 0
    results: Counter[str] = field(default_factory=Counter)
    codes: Counter[int] = field(default_factory=Counter)
    messages: Counter[str] = field(default_factory=Counter)


async def _one(editor: Editor, method: str, params: Any, known: Known, tally: Tally) -> None:
    tally.calls += 1
    try:
        result = await call(editor, method, params)
    except JsonRpcException as exc:
        tally.codes[exc.code] += 1
        tally.messages[f"{method} {exc.code} {exc.message[:80]}"] += 1
        assert exc.code in KNOWN_CODES, f"{method} {params!r:.500}: {exc.code} {exc.message}"
        assert exc.message, f"{method}: an error without a message"
        return
    problems = schema_errors(f"{schema_name(method)}.result", result)
    assert not problems, f"{method} {params!r:.300} → {result!r:.500}: {problems}"
    tally.results[method] += 1
    session = params.get("sessionId") if isinstance(params, dict) else None
    if method == "pi/session/close" and session in known.sessions:
        known.sessions.remove(session)  # its file stays in known.paths, to be opened again
    known.learn(result, session)


async def test_a_thousand_random_calls_leave_the_daemon_answering(
    start: Any, tmp_path: Path
) -> None:
    # A small keepRecentTokens, so that sessions of a few turns can be compacted.
    settings_ = {"compaction": {"keepRecentTokens": 10}}
    editor = exact_json(await start(Script(default=REPLY), responder=_reply, settings=settings_))
    loop = asyncio.get_running_loop()
    (tmp_path / "garbage.jsonl").write_text('{"type": "nonsense"}\nnot json\n')
    (tmp_path / "empty.jsonl").write_text("")
    known = Known(folders=[editor.root.as_uri()])
    tally = Tally()
    # A session with a finished turn, so real entry ids exist from the start.
    first = await call(editor, "pi/session/new", {})
    session = first["sessionId"]
    known.learn(first, session)
    await call(editor, "pi/session/prompt", {"sessionId": session, "text": "hello"})
    await editor.wait_for("agent_end")
    known.learn(await call(editor, "pi/session/tree", {"sessionId": session}), session)

    seen = [0]  # events already read for entry ids

    def run(coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(CALL_TIMEOUT + 30)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.generate],  # replays against a changed daemon would not shrink anything
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def random_calls(data: st.DataObject) -> None:
        seen[0] = known.learn_events(editor.events, seen[0])
        # Every method once per example, in a drawn order (a drawn method would mostly be the
        # first one: hypothesis favours simple choices), with drawn params.
        order = data.draw(st.permutations(METHODS), label="order")
        batch = [(method.name, _params(data, method, known, tmp_path)) for method in order]
        together = data.draw(st.booleans(), label="sent together")

        async def send() -> None:
            calls = [_one(editor, name, params, known, tally) for name, params in batch]
            if together:
                await asyncio.gather(*calls)
            else:
                for one in calls:
                    await one

        run(send())

    with killed_on_failure(editor):
        await asyncio.to_thread(random_calls)

    assert tally.calls == EXAMPLES * len(METHODS) >= 1000
    print("TALLY", sorted(tally.results.items(), key=lambda kv: kv[1])[:6], tally.codes)
    # The random params reached every method's success path and the main error paths.
    assert set(tally.results) == {m.name for m in METHODS}, tally.results
    assert {-32602, errors.UNKNOWN_SESSION, errors.UNKNOWN_ENTRY} <= set(tally.codes), tally.codes
    # Still answering; let the turns finish, then check every event and every session file.
    open_sessions = [s for s in known.sessions if await _is_open(editor, s)]
    assert open_sessions
    for session in open_sessions:
        await call(editor, "pi/session/abort", {"sessionId": session})
        state = await assert_answers(editor, session)
        assert state["isStreaming"] is False
    assert assert_events_valid(editor, restarts=None) > 0
    for path in known.paths:
        if Path(path).is_file():
            read_session_file(path)


async def _is_open(editor: Editor, session: str) -> bool:
    try:
        await call(editor, "pi/session/state", {"sessionId": session})
    except JsonRpcException as exc:
        assert exc.code == errors.UNKNOWN_SESSION
        return False
    return True

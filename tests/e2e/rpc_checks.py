"""Helpers for the reliability tests: exact JSON from the daemon, errors, schemas, event checks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCNotification, JsonRPCResponseMessage
from pytest_lsp import ClientServerConfig

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from pi_lsp.session.entries import session_line
from tests.deadlines import HANG
from tests.e2e.conftest import server_env, start_editor
from tests.lsp_editor import Editor

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
CALL_TIMEOUT = HANG
"""Seconds before an unanswered request counts as a hang (a failure bound, not a speed limit)."""


def exact_json(editor: Editor) -> Editor:
    """Make the client keep results and notification params as the JSON the daemon sent.

    pygls's client turns every custom result into nested namedtuples (``rename=True``, so keys
    that are not identifiers are renamed and ``type_name`` is dropped); schema checks need the
    real objects.
    """
    converter = editor.client.protocol._converter

    def keep(obj: Any, cls: type) -> Any:
        return cls(**obj)

    for cls in (JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, keep)
    return editor


@contextlib.asynccontextmanager
async def daemon(
    root: Path, agent_dir: Path, script: Script, settings: dict[str, Any] | None = None
) -> AsyncIterator[Editor]:
    """One daemon and its scripted provider for longer than a test (the ``start`` fixture's
    steps, for module-scoped fixtures); results and events arrive as exact JSON."""
    (root / "calc.py").write_text("def add(a, b):\n    return abs(a) + b\n")
    with FakeOpenAI(script) as fake:
        config = ClientServerConfig(
            server_command=[sys.executable, "-m", "pi_lsp", "--stdio"],
            server_env=server_env(agent_dir),
        )
        client = await config.start()
        try:
            yield exact_json(await start_editor(client, root, fake, settings=settings))
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 10)
            await client.stop()


async def call(editor: Editor, method: str, params: Any, timeout: float = CALL_TIMEOUT) -> Any:
    """A request with a timeout: a daemon that never answers fails the test instead of hanging."""
    try:
        return await asyncio.wait_for(
            editor.client.protocol.send_request_async(method, params), timeout
        )
    except TimeoutError:
        raise AssertionError(f"{method} {_short(params)}: no answer in {timeout} s") from None


async def rpc_error(editor: Editor, method: str, params: Any) -> JsonRpcException:
    """The JSON-RPC error the daemon answers ``method`` with (fails if it succeeds)."""
    try:
        result = await call(editor, method, params)
    except JsonRpcException as exc:
        return exc
    raise AssertionError(f"{method} {_short(params)} succeeded: {_short(result)}")


async def assert_answers(editor: Editor, session_id: str) -> dict[str, Any]:
    """The daemon is alive and still knows the session."""
    state = await call(editor, "pi/session/state", {"sessionId": session_id})
    assert isinstance(state, dict) and state["sessionId"] == session_id, state
    return state


def schema_name(method: str) -> str:
    """``pi/session/state`` → ``pi-session-state`` (the stem ``schemas_gen`` writes)."""
    return method.replace("/", "-")


@cache
def validator(stem: str) -> Draft202012Validator:
    """A validator for ``schemas/<stem>.schema.json``."""
    schema = json.loads((SCHEMA_DIR / f"{stem}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(stem: str, value: Any) -> list[str]:
    """Why ``value`` does not fit the schema (empty when it does)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:300]}"
        for e in validator(stem).iter_errors(value)
    ]


def assert_events_valid(*editors: Editor, restarts: int | None = 0) -> int:
    """Every ``pi/event`` fits the schema and each session's ``seq`` runs 1, 2, 3… per daemon.

    A session closed and opened again starts a new stream at 1 (its state's ``lastSeq`` says
    so); ``restarts`` is how many such new starts the test caused (None: any number). Returns
    how many events were checked.
    """
    checked = 0
    for editor in editors:
        seqs: dict[str, list[int]] = defaultdict(list)
        for index, notification in enumerate(editor.events):
            problems = schema_errors("pi-event", notification)
            assert not problems, f"event #{index} {_short(notification)}: {problems}"
            seqs[notification["sessionId"]].append(notification["seq"])
            checked += 1
        started = 0
        for session_id, numbers in seqs.items():
            streams: list[list[int]] = []
            for number in numbers:
                if number == 1 or not streams:
                    streams.append([])
                streams[-1].append(number)
            started += len(streams) - 1
            for stream in streams:
                assert stream == list(range(1, len(stream) + 1)), (
                    f"session {session_id}: seq not gap-free from 1: {_gaps(stream)}"
                )
        if restarts is not None:
            assert started == restarts, f"{started} streams restarted at 1, expected {restarts}"
    return checked


def read_session_file(path: str | Path) -> list[dict[str, Any]]:
    """Every line of a session file, each validated as a session line.

    Lines end at ``\n`` only: JSON leaves U+0085, U+2028 and U+2029 unescaped (as pi's
    ``JSON.stringify`` does), and ``str.splitlines`` would cut a line at them.
    """
    text = Path(path).read_text(encoding="utf-8")
    if not text:  # an empty file opened as a session: nothing is written before a reply
        return []
    assert text.endswith("\n"), f"{path}: the last line is not terminated"
    lines = text[:-1].split("\n")
    for number, line in enumerate(lines, 1):
        try:
            session_line().validate_json(line)
        except Exception as exc:  # pragma: no cover - the assertion message is the point
            raise AssertionError(f"{path}:{number} is not a session line: {exc}") from None
    return [json.loads(line) for line in lines]


def assert_single_chain(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries (after the header) form one chain in file order: nothing interleaved.

    Two writers appending from the same leaf would give two entries the same parent; a writer
    appending from a stale leaf would point back past the previous line.
    """
    header, *entries = lines
    assert header["type"] == "session", header
    previous: str | None = None
    for entry in entries:
        assert entry["parentId"] == previous, (
            f"entry {entry['id']} ({entry['type']}) has parent {entry['parentId']}, "
            f"but the line before it is {previous}"
        )
        previous = entry["id"]
    return entries


@contextlib.contextmanager
def killed_on_failure(*editors: Editor) -> Iterator[None]:
    """Kill the daemons if the block fails.

    pytest-lsp's ``stop()`` waits for the server process to exit, and after a fatal client
    error ``shutdown_session`` sends nothing: the fixture's teardown would wait forever and the
    failure would never be reported.
    """
    try:
        yield
    except BaseException:
        for editor in editors:
            process = editor.client._server
            if process is not None and process.returncode is None:
                process.kill()
        raise


def server_pid(editor: Editor) -> int:
    """The daemon's process id."""
    process = editor.client._server
    assert process is not None
    return int(process.pid)


def forget_server(editor: Editor, reason: str) -> None:
    """Tell pytest-lsp the daemon is gone, so the fixture's teardown sends it nothing more.

    ``shutdown_session`` skips ``shutdown``/``exit`` when the client has recorded an error; a
    daemon that already exited (or was killed) would otherwise leave the request unanswered
    until the teardown's timeout.
    """
    editor.client.error = RuntimeError(reason)


async def wait_process_exit(editor: Editor, timeout: float) -> int:
    """The daemon's return code once it exits (fails after ``timeout`` s)."""
    process = editor.client._server
    assert process is not None
    try:
        return await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise AssertionError(f"the daemon did not exit within {timeout} s") from None


def _gaps(numbers: list[int]) -> str:
    expected = range(1, len(numbers) + 1)
    first = next(i for i, (a, b) in enumerate(zip(numbers, expected, strict=True)) if a != b)
    return f"at position {first}: {numbers[max(0, first - 3) : first + 3]}"


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


SLOW = "take your time"
"""A prompt containing this is held by :func:`holding_slow_turns` until it is released."""


def holding_slow_turns(release: threading.Event) -> Callable[[JsonObject], Turn | None]:
    """A scripted-server responder that keeps a reply to a :data:`SLOW` prompt back until
    ``release`` is set, then lets the script answer (a release that never comes fails the
    reply after ``HANG`` s: the test hung)."""

    def hold(body: JsonObject) -> Turn | None:
        if SLOW in message_text(body["messages"][-1]) and not release.wait(HANG):
            raise AssertionError(f"the held reply was not released in {HANG} s")
        return None

    return hold

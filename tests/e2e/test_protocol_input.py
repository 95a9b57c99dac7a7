"""Bad input on the protocol stream is answered as JSON-RPC and LSP require; the daemon goes on.

Raw bytes go to a real daemon over its stdin, or over the editor's TCP connection (the same
reader serves both): frames with broken or lying ``Content-Length`` headers, bodies that are not
JSON, envelopes that are not requests, batches, requests without ``params`` or with extra keys,
requests out of LSP's lifecycle order. Each must get its error (or result), and every request
after it must be answered.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.raw_client import (
    TIMEOUT,
    Reader,
    SocketClient,
    frame,
    initialize,
    request,
    stdio_daemon,
    tcp_daemon,
)

TOKEN = "editor-token-0123456789"
LIST = {"sessions": []}


@contextlib.contextmanager
def _initialized(kind: str, tmp_path: Path) -> Iterator[Any]:
    """A client past ``initialize``/``initialized`` over ``kind`` (``stdio`` or ``tcp``)."""
    if kind == "stdio":
        with stdio_daemon(tmp_path) as daemon:
            daemon.send(initialize(0, tmp_path))
            assert "result" in daemon.answer(0)
            daemon.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            yield daemon
    else:
        with tcp_daemon(tmp_path, TOKEN) as (_process, port):
            client = SocketClient(port)
            client.send(initialize(0, tmp_path, authToken=TOKEN))
            assert "result" in client.answer(0)
            client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            yield client
            client.close()


both = pytest.mark.parametrize("kind", ["stdio", "tcp"])


def _error(reader: Reader) -> dict[str, Any]:
    message = reader.receive()
    assert message is not None, "no answer"
    assert "error" in message, message
    assert "data" not in message["error"], message  # never a traceback
    error: dict[str, Any] = message["error"]
    return {"id": message.get("id"), **error}


def _answers_list(reader: Any, msg_id: Any) -> None:
    reader.send(request(msg_id, "pi/sessions/list", {}))
    assert reader.answer(msg_id)["result"] == LIST


# ----------------------------------------------------------------- item 16: params


@both
def test_requests_without_params_or_with_extra_keys_are_answered(kind: str, tmp_path: Path) -> None:
    with _initialized(kind, tmp_path) as client:
        client.send(request(1, "pi/sessions/list"))  # no params key: valid JSON-RPC
        assert client.answer(1)["result"] == LIST
        client.send(request(2, "pi/sessions/list", {}, extra="ignored", trace=1))
        assert client.answer(2)["result"] == LIST
        client.send(request(3, "pi/sessions/list", []))  # Neovim's encoding of Lua's {}
        assert client.answer(3)["result"] == LIST
        client.send(request(4, "pi/session/state", []))
        error = _error(client)
        assert (error["id"], error["code"]) == (4, -32602) and "sessionId" in error["message"]
        client.send({"jsonrpc": "2.0", "method": "initialized"})  # notification, no params
        _answers_list(client, 5)


# ----------------------------------------------------------------- item 18: errors


@both
def test_parse_errors_invalid_requests_and_batches_are_answered(kind: str, tmp_path: Path) -> None:
    cases: list[tuple[bytes, int, Any]] = [
        (frame(b"{not json"), -32700, None),
        (frame(b"\xff\xfe garbage"), -32700, None),
        (frame(b"[" * 100_000), -32700, None),  # nesting too deep for the parser
        (frame(b"42"), -32600, None),
        (frame(b'"text"'), -32600, None),
        (frame(b"null"), -32600, None),
        (frame({"jsonrpc": "2.0"}), -32600, None),
        (frame({"jsonrpc": "1.0", "id": 11, "method": "pi/sessions/list"}), -32600, 11),
        (frame({"id": 12, "method": "pi/sessions/list"}), -32600, 12),
        (frame({"jsonrpc": "2.0", "id": {"a": 1}, "method": "pi/sessions/list"}), -32600, None),
        (frame({"jsonrpc": "2.0", "id": 1.5, "method": "pi/sessions/list"}), -32600, None),
        (frame({"jsonrpc": "2.0", "id": 13, "method": 5}), -32600, 13),
        (frame({"jsonrpc": "2.0", "id": 14}), -32600, 14),
        (frame(b"[]"), -32600, None),
        (
            frame([request(15, "pi/sessions/list", {}), request(16, "pi/sessions/list", {})]),
            -32600,
            None,
        ),
        (frame({"jsonrpc": "2.0", "id": 17, "method": "pi/nothing"}), -32601, 17),
    ]
    with _initialized(kind, tmp_path) as client:
        for number, (data, code, msg_id) in enumerate(cases):
            client.send(data)
            error = _error(client)
            assert (error["code"], error["id"]) == (code, msg_id), (data[:80], error)
            _answers_list(client, 1000 + number)
        client.send(frame([request(18, "pi/sessions/list", {})]))
        assert "batches are not supported" in _error(client)["message"]


@both
def test_a_megabyte_method_name_is_not_echoed(kind: str, tmp_path: Path) -> None:
    with _initialized(kind, tmp_path) as client:
        client.send(request(1, "pi/" + "x" * 1_000_000, {}))
        error = _error(client)
        assert error["code"] == -32601 and len(error["message"]) < 500, len(error["message"])
        assert "1000003 characters" in error["message"]
        client.send({"jsonrpc": "2.0", "method": "y" * 1_000_000})  # a notification: dropped
        _answers_list(client, 2)
    assert (tmp_path / "stderr.log").stat().st_size < 50_000  # not logged whole either


@both
def test_one_wrong_length_does_not_desynchronise_the_stream(kind: str, tmp_path: Path) -> None:
    body = json.dumps(request(1, "pi/sessions/list", {})).encode()
    with _initialized(kind, tmp_path) as client:
        client.send(b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body)  # too short
        assert _error(client)["code"] == -32700
        for msg_id in range(2, 12):
            _answers_list(client, msg_id)
        client.send(b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body)  # too long
        # It swallows the head of the next frame, which is found again inside it.
        for msg_id in range(12, 22):
            client.send(request(msg_id, "pi/sessions/list", {}))
        error = _error(client)
        assert (error["code"], error["id"]) == (-32700, None), error
        assert set(client.answers(set(range(12, 22)))) == set(range(12, 22))


@both
def test_broken_headers_are_answered_and_skipped(kind: str, tmp_path: Path) -> None:
    with _initialized(kind, tmp_path) as client:
        for msg_id, header in enumerate(
            [
                b"Content-Length: abc\r\n\r\n",
                b"Content-Length: 1e12\r\n\r\n",
                b"Content-Length: -1\r\n\r\n",
                b"Content-Length: 8000000000\r\n\r\n",
                b"Content-Type: application/json\r\n\r\n{}",
                b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                b"no header at all\r\n",
            ],
            start=1,
        ):
            client.send(header)
            error = _error(client)
            assert (error["code"], error["id"]) == (-32700, None), (header, error)
            _answers_list(client, msg_id)


@pytest.mark.parametrize(
    "first",
    [
        b"Content-Length: abc\r\n\r\n",
        b"Content-Length: 1e12\r\n\r\n",
        b"Content-Length: -1\r\n\r\n",
        b"Content-Length: 8000000000\r\n\r\n",
    ],
)
def test_a_broken_first_frame_neither_crashes_nor_hangs(first: bytes, tmp_path: Path) -> None:
    """The first frame is read before pygls is imported (pi_lsp/protocol/framing.py)."""
    with stdio_daemon(tmp_path) as daemon:
        daemon.send(first)
        error = _error(daemon)
        assert (error["code"], error["id"]) == (-32700, None), error
        daemon.send(initialize(1, tmp_path))
        assert "result" in daemon.answer(1)
        _answers_list(daemon, 2)
        assert daemon.stop() in (0, 1)  # stdin closed: it ends, neither crashed nor hung


# ----------------------------------------------------------------- item 18: lifecycle


def test_requests_before_initialize_get_server_not_initialized(tmp_path: Path) -> None:
    with stdio_daemon(tmp_path) as daemon:
        daemon.send(request(1, "pi/sessions/list", {}))
        error = _error(daemon)
        assert (error["id"], error["code"]) == (1, -32002), error
        daemon.send(request(2, "pi/session/new", {}))
        assert _error(daemon)["code"] == -32002
        daemon.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})  # dropped
        daemon.send(initialize(3, tmp_path))
        assert "result" in daemon.answer(3)
        _answers_list(daemon, 4)
        assert not list((tmp_path / "agent").rglob("*.jsonl"))


@both
def test_requests_after_shutdown_are_invalid_and_exit_still_works(
    kind: str, tmp_path: Path
) -> None:
    with _initialized(kind, tmp_path) as client:
        client.send(request(1, "shutdown"))
        client.send(request(2, "pi/sessions/list", {}))
        client.send(request(3, "shutdown"))
        answers = client.answers({1, 2, 3})
        assert answers[1]["result"] is None, answers
        assert answers[2]["error"]["code"] == -32600, answers
        assert answers[3]["error"]["code"] == -32600, answers
        client.send({"jsonrpc": "2.0", "method": "exit"})
        if isinstance(client, SocketClient):
            client.read_all(TIMEOUT)
        else:
            assert client.process.wait(TIMEOUT) == 0

"""``pi-lsp --tcp``: one authenticated editor; HTTP, wrong tokens and second clients refused.

Each refused connection is closed by the daemon, which goes on serving the editor: its stream
is not touched (no message of the intruder's reaches it, nothing of its own is sent elsewhere).
"""

from __future__ import annotations

import stat
import time
from pathlib import Path

from tests.e2e.raw_client import (
    TIMEOUT,
    SocketClient,
    frame,
    initialize,
    request,
    tcp_daemon,
)

TOKEN = "editor-token-0123456789"


def _editor(port: int, root: Path) -> SocketClient:
    editor = SocketClient(port)
    editor.send(initialize(1, root, authToken=TOKEN))
    assert "result" in editor.answer(1), "the editor's initialize failed"
    editor.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return editor


def _still_serves(editor: SocketClient, msg_id: int) -> None:
    editor.send(request(msg_id, "pi/sessions/list", {}))
    assert editor.answer(msg_id)["result"] == {"sessions": []}


def test_an_editor_with_the_token_is_served_and_exits_cleanly(tmp_path: Path) -> None:
    with tcp_daemon(tmp_path, TOKEN) as (process, port):
        editor = _editor(port, tmp_path)
        _still_serves(editor, 2)
        editor.send(request(3, "shutdown"))
        assert editor.answer(3) == {"jsonrpc": "2.0", "id": 3, "result": None}
        editor.send({"jsonrpc": "2.0", "method": "exit"})
        assert process.wait(TIMEOUT) == 0


def test_a_wrong_or_missing_token_is_refused_and_the_daemon_goes_on(tmp_path: Path) -> None:
    with tcp_daemon(tmp_path, TOKEN) as (process, port):
        for options in ({"authToken": "guess-guess-guess-guess"}, {}, {"authToken": 5}):
            intruder = SocketClient(port)
            intruder.send(initialize(7, tmp_path, **options))
            answer = intruder.answer(7)
            assert answer["error"]["code"] == -32010, answer
            intruder.read_all()  # the daemon closes it
            intruder.close()
        intruder = SocketClient(port)  # anything but initialize first
        intruder.send(request(8, "pi/session/new", {}))
        assert intruder.answer(8)["error"]["code"] == -32010
        intruder.close()
        assert process.poll() is None
        editor = _editor(port, tmp_path)  # the real editor still gets in
        _still_serves(editor, 2)


def test_an_http_request_is_refused_never_run(tmp_path: Path) -> None:
    """What a web page's ``fetch("http://127.0.0.1:PORT", {method: "POST", body})`` sends: the
    JSON-RPC body inside must not run (here: it would create a session file)."""
    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
        b'{"capabilities":{},"initializationOptions":{"authToken":"' + TOKEN.encode() + b'"}}}'
    )
    http = (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
        b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    )
    with tcp_daemon(tmp_path, TOKEN) as (process, port):
        page = SocketClient(port)
        page.send(http)
        reply = page.read_all()
        assert reply.startswith(b"HTTP/1.1 403 Forbidden\r\n"), reply[:200]
        assert b"Content-Length" not in reply.split(b"\r\n\r\n", 1)[1]  # no LSP answer inside
        page.close()
        time.sleep(0.3)
        assert process.poll() is None, "closing the refused connection ended the daemon"
        editor = _editor(port, tmp_path)
        _still_serves(editor, 2)


def test_a_second_connection_is_refused_without_disturbing_the_editor(tmp_path: Path) -> None:
    with tcp_daemon(tmp_path, TOKEN) as (process, port):
        editor = _editor(port, tmp_path)
        second = SocketClient(port)
        second.send(initialize(1, tmp_path, authToken=TOKEN))  # even with the token
        second.send(request(2, "pi/session/new", {}))
        answer = second.receive()
        assert answer is not None and answer["error"]["code"] == -32600, answer
        assert "another editor" in answer["error"]["message"]
        second.read_all()
        second.close()
        time.sleep(0.3)
        assert process.poll() is None, "closing the second connection ended the daemon"
        _still_serves(editor, 2)
        assert editor.receive(0.5) is None, "the editor got something meant for the second client"
        assert not list((tmp_path / "agent").rglob("*.jsonl"))  # its pi/session/new never ran


def test_without_pi_lsp_token_the_daemon_writes_one_to_a_private_file(tmp_path: Path) -> None:
    with tcp_daemon(tmp_path, None) as (_process, port):
        path = tmp_path / "agent" / "pi-lsp" / f"tcp-{port}.token"
        deadline = time.monotonic() + TIMEOUT
        while not path.exists():
            assert time.monotonic() < deadline, "no token file"
            time.sleep(0.05)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert str(path) in (tmp_path / "stderr.log").read_text()
        token = path.read_text().strip()
        assert len(token) >= 32
        editor = SocketClient(port)
        editor.send(initialize(1, tmp_path, authToken=token))
        assert "result" in editor.answer(1)
        assert not path.exists(), "the used token file was left behind"


def test_a_refused_frame_after_login_is_answered_over_tcp(tmp_path: Path) -> None:
    """Bad input on the editor's own connection is answered like over stdio (same reader)."""
    with tcp_daemon(tmp_path, TOKEN) as (_process, port):
        editor = _editor(port, tmp_path)
        editor.send(b"Content-Length: abc\r\n\r\n" + frame(request(2, "pi/sessions/list", {})))
        first = editor.receive()
        assert first is not None and first["error"]["code"] == -32700, first
        assert editor.answer(2)["result"] == {"sessions": []}

"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for offline tests and demos (stdlib only).

``/v1/chat/completions`` answers each POST with the next scripted turn (see
:mod:`pi_lsp.devtools.fake_script`), streaming SSE or not, and records every request body.
``/v1/models`` lists the script's model ids. Each response closes its connection, so stopping the
server joins every handler thread. Use it as a context manager in tests, or run
``python -m pi_lsp.devtools.fake_openai --script FILE.json [--port N]``, which prints the base URL.
It never talks to the network beyond its own loopback socket.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType

from pi_lsp.devtools.fake_script import (
    JsonObject,
    Rule,
    Script,
    ScriptError,
    Turn,
    chunks,
    completion,
)

Responder = Callable[[JsonObject], Turn | None]
"""Picks a reply from a request body; ``None`` falls through to the script."""

_KEEPALIVE_SECONDS = 0.02


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: JsonObject


class FakeOpenAI:
    """The server. ``base_url`` ends in ``/v1``; pass it to litellm as ``api_base``."""

    def __init__(
        self,
        script: Script | list[Turn] | None = None,
        *,
        responder: Responder | None = None,
        port: int = 0,
    ) -> None:
        self.script = script if isinstance(script, Script) else Script(turns=list(script or []))
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        """Replies the client abandoned before the server finished sending them."""
        self.completed_streams = 0
        self._turns = list(self.script.turns)
        self._rule_uses: dict[int, int] = {}
        self._lock = threading.Condition()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = False
        self._httpd.block_on_close = True
        self._thread: threading.Thread | None = None
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Release hanging streams, stop serving and join every thread."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def push(self, *turns: Turn) -> None:
        """Append turns to the script while the server runs."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def bodies(self) -> list[JsonObject]:
        """The recorded request bodies, in arrival order."""
        with self._lock:
            return [request.body for request in self.requests]

    def wait_for_disconnects(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` client disconnects were seen; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self.disconnects >= count, timeout)

    def next_turn(self, body: JsonObject) -> tuple[Turn, int]:
        """Choose the reply for ``body``: responder, scripted turns, rules, default."""
        with self._lock:
            number = len(self.requests) - 1  # this request, already recorded
            chosen = self.responder(body) if self.responder else None
            if chosen is None and self._turns:
                chosen = self._turns.pop(0)
            if chosen is None:
                chosen = self._match_rule(body)
            if chosen is None:
                chosen = self.script.default or Turn(
                    error=ScriptError(status=400, message="fake_openai: script exhausted")
                )
            return chosen, number

    def _match_rule(self, body: JsonObject) -> Turn | None:
        for index, rule in enumerate(self.script.rules):
            if _rule_available(rule, self._rule_uses.get(index, 0)) and rule.matches(body):
                self._rule_uses[index] = self._rule_uses.get(index, 0) + 1
                return rule.reply
        return None

    def record(self, request: RecordedRequest) -> None:
        """Remember one request."""
        with self._lock:
            self.requests.append(request)

    def count_stream_end(self, *, disconnected: bool) -> None:
        """Count a finished or abandoned reply and wake waiters."""
        with self._lock:
            if disconnected:
                self.disconnects += 1
            else:
                self.completed_streams += 1
            self._lock.notify_all()

    def pause(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True as soon as :meth:`stop` was called."""
        return self._stopping.wait(seconds)


def _rule_available(rule: Rule, used: int) -> bool:
    return rule.times is None or used < rule.times


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        server_fake = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server_fake: FakeOpenAI

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: tests read their own output."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            models = [
                {"id": m, "object": "model", "owned_by": "fake"}
                for m in self.server_fake.script.models
            ]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        body = json.loads(raw)
        fake = self.server_fake
        headers = {name.lower(): value for name, value in self.headers.items()}
        fake.record(RecordedRequest(self.path, headers, body))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        turn, number = fake.next_turn(body)
        if turn.response_delay:
            fake.pause(turn.response_delay)
        if body.get("stream") and turn.error is None:
            self._stream(body, turn, number)
            return
        try:
            if turn.error is not None:
                self._send_error(turn.error)
            else:
                self._send_json(200, completion(body, turn, number))
        except (BrokenPipeError, ConnectionResetError):
            fake.count_stream_end(disconnected=True)  # the client left during response_delay

    def _send_error(self, error: ScriptError) -> None:
        extra = {} if error.retry_after is None else {"retry-after": f"{error.retry_after:g}"}
        self._send_json(error.status, error.body(), extra)

    def _send_json(
        self, status: int, payload: JsonObject, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _stream(self, body: JsonObject, turn: Turn, number: int) -> None:
        fake = self.server_fake
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for sent, payload in enumerate(chunks(body, turn, number)):
                if turn.hang_after is not None and sent >= turn.hang_after:
                    self._hang()
                    return
                self._write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                if turn.chunk_delay:
                    fake.pause(turn.chunk_delay)
            self._write(b"data: [DONE]\n\n")
        except (BrokenPipeError, ConnectionResetError):
            fake.count_stream_end(disconnected=True)
            return
        fake.count_stream_end(disconnected=False)

    def _hang(self) -> None:
        """Hold the stream open with SSE comments until the client leaves or the server stops."""
        fake = self.server_fake
        try:
            while not fake.pause(_KEEPALIVE_SECONDS):
                self._write(b": keep-alive\n\n")
        except (BrokenPipeError, ConnectionResetError):
            fake.count_stream_end(disconnected=True)

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()


def load_script(path: Path) -> Script:
    """Read a script file (JSON)."""
    return Script.model_validate_json(path.read_bytes())


def main(argv: list[str] | None = None) -> int:
    """CLI: serve a script until interrupted; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog="python -m pi_lsp.devtools.fake_openai")
    parser.add_argument("--script", type=Path, required=True, help="script file (JSON)")
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    args = parser.parse_args(argv)
    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with FakeOpenAI(load_script(args.script), port=args.port) as fake:
        print(fake.base_url, flush=True)
        done.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

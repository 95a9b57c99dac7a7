"""Serving one editor: the read loop over stdin or an authenticated 127.0.0.1 socket.

The read loop: bytes from stdin or a socket, through the frame parser, into the protocol.

It replaces pygls's ``run_async`` (which trusted every ``Content-Length``): bytes are read as
they arrive (``read1`` on stdin in a worker thread, ``read`` on a socket), fed to a
:class:`~pi_lsp.protocol.framing.FrameParser`, and each event goes to
:meth:`~pi_lsp.protocol.language_server.PiProtocol.receive`. A failure while handling one
message is logged and the loop goes on; the loop ends when the stream does.

``pi-lsp --tcp PORT``: one authenticated editor on 127.0.0.1, nobody else.

Any local process (and any web page, through ``fetch``) can open a loopback socket, and the
daemon runs commands and writes files. So the first message on a connection must be
``initialize`` carrying the daemon's token in ``initializationOptions.authToken``; an HTTP
request is answered ``403`` and closed; a wrong or missing token gets error -32010 and is
closed; while the editor is connected every further connection gets error -32600 and is closed
without touching the editor's stream. A refused connection never ends the daemon; the editor's
does (as stdin's end does over stdio).

The token is the editor's ``PI_LSP_TOKEN`` environment variable (at least 16 characters; it is
removed from the daemon's environment, so tools it runs do not inherit it), else 32 random bytes
the daemon writes to ``<agentDir>/pi-lsp/tcp-<PORT>.token`` (mode 0600) and names on stderr.
That file is removed once an editor has connected with it (no second client can connect
anyway) or when the daemon ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter

from pi_lsp.daemon import log_to_stderr
from pi_lsp.protocol import framing
from pi_lsp.protocol.framing import MAX_BODY, Event, FrameParser, HttpRequest, Message
from pi_lsp.protocol.language_server import PiLanguageServer, PiProtocol
from pi_lsp.protocol.registry import create_server
from pi_lsp.session.jsonl import dumps

logger = logging.getLogger(__name__)
CHUNK = 64 * 1024


async def pump(
    read: Callable[[], Awaitable[bytes]],
    protocol: PiProtocol,
    parser: FrameParser,
    pending: Iterable[Event] = (),
) -> None:
    """Feed everything ``read`` returns to ``protocol`` until it returns ``b""``."""
    events = list(pending)
    while True:
        for event in events:
            try:
                protocol.receive(event)
            except Exception:
                logger.exception("handling a message failed")
        data = await read()
        if not data:
            return
        events = parser.feed(data)


def serve_stdio(
    log_level: str = "warning",
    *,
    stdin: BinaryIO | None = None,
    early: tuple[FrameParser, list[Event], Any] | None = None,
) -> None:
    """Serve the editor on stdin/stdout until it disconnects.

    ``early`` (the frame parser, the events it has read and the id of an ``initialize`` already
    answered) comes from :func:`~pi_lsp.protocol.framing.early_initialize` when ``initialize``
    was answered before pygls was imported.
    """
    _setup_logging(log_level)
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but protocol may reach the real stdout
    server = create_server()
    parser, pending, answered = early or (FrameParser(), [], None)
    server.protocol.answered_early = answered
    _serve_streams(server, stdin or sys.stdin.buffer, stdout, parser, pending)


def _setup_logging(level: str) -> None:
    root = log_to_stderr(level)
    logging.getLogger("pygls").setLevel(max(logging.WARNING, root.level))


def _serve_streams(
    server: PiLanguageServer,
    stdin: BinaryIO,
    stdout: BinaryIO,
    parser: FrameParser,
    pending: Iterable[Event],
) -> None:
    """Serve ``server`` on a byte stream pair until the input ends."""
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)
    protocol.set_writer(StdoutWriter(stdout))

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def read() -> Awaitable[bytes]:
            return loop.run_in_executor(server.thread_pool, stdin.read1, CHUNK)  # type: ignore[attr-defined]

        await pump(read, protocol, parser, pending)

    try:
        asyncio.run(main())
    except BrokenPipeError:
        logger.error("the editor closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


TOKEN_ENV = "PI_LSP_TOKEN"
MIN_TOKEN = 16
FIRST_MESSAGE_TIMEOUT = 10.0
"""Seconds a new connection has to send its ``initialize``."""
MAX_FIRST_MESSAGE = 1024 * 1024
"""Bytes an unauthenticated ``initialize`` may have (an unknown client buffers no more)."""
BUSY = "Invalid Request: another editor is connected to this daemon (it serves one)"
HTTP_FORBIDDEN = (
    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 46\r\n"
    b"Connection: close\r\n\r\npi-lsp speaks LSP, not HTTP: request refused.\n"
)


class TokenError(Exception):
    """``PI_LSP_TOKEN`` is set but too short to be a secret."""


def token_path(agent: Path, port: int) -> Path:
    """Where a generated token is written."""
    return agent / "pi-lsp" / f"tcp-{port}.token"


def make_token(agent: Path, port: int) -> tuple[str, Path | None]:
    """The editor's token (from the environment), else a new one written to a 0600 file."""
    given = os.environ.pop(TOKEN_ENV, None)
    if given is not None:
        if len(given) < MIN_TOKEN:
            raise TokenError(f"{TOKEN_ENV} must be at least {MIN_TOKEN} characters")
        return given, None
    token = secrets.token_urlsafe(32)
    path = token_path(agent, port)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token, path


def _frame(message: dict[str, Any]) -> bytes:
    return framing.frame(dumps(message))


class TcpServer:
    """Accepts connections; see the module docstring."""

    def __init__(
        self, server: PiLanguageServer, token: str, token_file: Path | None = None
    ) -> None:
        self.server = server
        self.token_file = token_file
        self.protocol: PiProtocol = server.protocol
        self.token = token
        self.client: asyncio.StreamWriter | None = None
        self.done = asyncio.Event()

    async def serve(self, host: str, port: int) -> None:
        """Listen until the editor's connection ends."""
        listener = await asyncio.start_server(self._connection, host, port)
        async with listener:
            await self.done.wait()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve_connection(reader, writer)
        except Exception:
            logger.exception("connection failed")
        finally:
            if writer is not self.client:
                writer.close()

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if self._busy():
            return self._refuse(writer, None, framing.INVALID_REQUEST, BUSY)
        parser = FrameParser(max_body=MAX_FIRST_MESSAGE)
        events: list[Event] = []
        try:
            async with asyncio.timeout(FIRST_MESSAGE_TIMEOUT):
                while not events:
                    data = await reader.read(CHUNK)
                    if not data:
                        return
                    events = parser.feed(data)
        except TimeoutError:
            return
        first = events[0]
        if isinstance(first, HttpRequest):
            logger.warning("refused an HTTP request on the LSP port: %s", first.line)
            writer.write(HTTP_FORBIDDEN)
            return
        problem = self._authenticate(first)
        if problem is not None:
            msg_id = _request_id(first)
            return self._refuse(writer, msg_id, framing.UNAUTHORIZED, problem)
        if self._busy():  # another connection authenticated while this one was read
            return self._refuse(writer, None, framing.INVALID_REQUEST, BUSY)
        self.client = writer
        parser.max_body = MAX_BODY
        self.protocol.set_writer(writer)
        if self.token_file is not None:  # used: nobody else can connect while this editor is
            with contextlib.suppress(OSError):
                self.token_file.unlink()
        try:
            await pump(lambda: reader.read(CHUNK), self.protocol, parser, events)
        finally:
            self.done.set()

    def _busy(self) -> bool:
        return self.client is not None

    def _authenticate(self, event: Event) -> str | None:
        """None for an ``initialize`` with the token (which is removed from it), else why not."""
        value = event.value if isinstance(event, Message) else None
        params = value.get("params") if isinstance(value, dict) else None
        if not isinstance(value, dict) or value.get("method") != "initialize":
            return "Unauthorized: the first message must be initialize with the daemon's token"
        options = params.get("initializationOptions") if isinstance(params, dict) else None
        given = options.pop("authToken", None) if isinstance(options, dict) else None
        if not isinstance(given, str) or not hmac.compare_digest(
            given.encode("utf-8", "replace"), self.token.encode()
        ):
            return "Unauthorized: initializationOptions.authToken is missing or wrong"
        return None

    def _refuse(self, writer: asyncio.StreamWriter, msg_id: Any, code: int, text: str) -> None:
        logger.warning("refused a connection: %s", text)
        writer.write(_frame(framing.error_response(msg_id, code, text)))


def _request_id(event: Event) -> Any:
    value = event.value if isinstance(event, Message) else None
    msg_id = value.get("id") if isinstance(value, dict) else None
    return msg_id if isinstance(msg_id, str | int) and not isinstance(msg_id, bool) else None


def serve_tcp(port: int, log_level: str = "warning") -> int:
    """Serve one authenticated editor on 127.0.0.1:``port`` (never on other interfaces).

    Returns the exit status.
    """
    host = "127.0.0.1"
    _setup_logging(log_level)
    sys.stdout = sys.stderr
    server = create_server()
    agent = server.workspaces.agent_dir
    try:
        token, path = make_token(agent, port)
    except (TokenError, OSError) as exc:
        print(f"pi-lsp: {exc}", file=sys.stderr)
        return 2
    if path is not None:
        print(f"pi-lsp: token for {host}:{port} in {path}", file=sys.stderr, flush=True)
    try:
        asyncio.run(TcpServer(server, token, path).serve(host, port))
    except OSError as exc:
        print(f"pi-lsp: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()
    return 0

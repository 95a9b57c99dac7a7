"""``pi-lsp --acp``'s wire: the ACP agent on stdin/stdout until the client closes the pipe.

- :func:`early_initialize`: answers ACP's ``initialize`` before the heavy imports. Importing the
  ACP SDK's generated models and the daemon takes about half a second, and an editor spawning
  the agent should not wait that long; so this module imports only the standard library at its
  top (the SDK, the agent and the daemon's helpers are imported where they are first needed,
  after the answer). The first line is read straight from the stdin file descriptor (no Python
  buffering, so nothing beyond it is consumed by mistake); if it is an ``initialize`` request it
  is answered at once with :func:`initialize_result`, the agent's one definition of its
  capabilities. The line (and anything read with it) is then handed to the real server, which
  runs its own ``initialize`` handler for the client's capabilities; its second answer to the
  same id is dropped by the transport.
- :func:`serve_acp`: stdout carries protocol frames only. The real descriptor is kept for the
  transport, and both ``sys.stdout`` and descriptor 1 are pointed at stderr, so a stray
  ``print`` (ours, a library's or a child process's) cannot corrupt the stream. Logs go to
  stderr.
- :class:`StdioTransport`: newline-delimited JSON-RPC, robust to bad frames. The SDK's own stdio
  transport skips a line that is not JSON without a word and stops the whole connection on a
  frame that is JSON but not an object; this one answers both as JSON-RPC says (``-32700``
  parse error, ``-32600`` invalid request, with ``id: null`` when none can be read) and goes on
  reading. It also drops the SDK's answer to an ``initialize`` answered early, and encodes lone
  surrogates as escapes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
RequestId = int | str
"""A JSON-RPC request id (never a bool, although JSON's ``true`` parses as an int subclass)."""


def initialize_result(version: str) -> dict[str, Any]:
    """The ``initialize`` result: protocol 1, what pi-lsp supports, no authentication."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": False, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "fork": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "pi-lsp", "title": "pi (pi-lsp)", "version": version},
    }


def read_first_line(fd: int) -> bytes:
    """Bytes from ``fd`` up to and including the first newline (or EOF), plus what came with it."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def early_initialize(stdin_fd: int, stdout_fd: int, version: str) -> tuple[bytes, RequestId | None]:
    """Answer ``initialize`` if it comes first; returns the bytes read and the answered id."""
    data = read_first_line(stdin_fd)
    line = data.split(b"\n", 1)[0]
    try:
        message = json.loads(line)
    except ValueError:
        return data, None
    if not (isinstance(message, dict) and message.get("method") == "initialize"):
        return data, None
    request_id = message.get("id")
    params = message.get("params")
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        return data, None
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), int):
        return data, None  # let the SDK answer invalid params
    answer = {"jsonrpc": "2.0", "id": request_id, "result": initialize_result(version)}
    body = (json.dumps(answer, separators=(",", ":")) + "\n").encode("utf-8")
    view = memoryview(body)
    while view:
        view = view[os.write(stdout_fd, view) :]
    return data, request_id


PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def encode(message: dict[str, Any]) -> bytes:
    """One frame: compact JSON and a newline (escaped ASCII when the text is not valid UTF-8)."""
    try:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")


def _problem(message: object) -> str | None:
    """Why a parsed frame is not a JSON-RPC request, notification or response (None: it is)."""
    if not isinstance(message, dict):
        return "a JSON-RPC message must be an object"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return "params must be an object"
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return "neither a request, a notification nor a response"


class StdioTransport:
    """The SDK's message-level ``Transport`` over an asyncio reader and writer."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        answered_early: RequestId | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._answered_early = answered_early
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message (and wait until the pipe took it)."""
        early = self._answered_early
        if early is not None and "method" not in message and message.get("id") == early:
            self._answered_early = None
            if "error" in message:
                logger.warning("initialize failed after the early answer: %s", message)
            return
        data = encode(message)
        async with self._lock:
            self._writer.write(data)
            await self._writer.drain()

    async def _error(self, request_id: RequestId | None, code: int, text: str) -> None:
        from pi_lsp.daemon.errors import bounded  # loaded by then: the agent imports it

        error = {"code": code, "message": bounded(text, 300)}
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    async def receive(self) -> dict[str, Any] | None:
        """The next valid message; None at the end of the input."""
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                from pi_lsp.daemon.errors import bounded

                logger.warning("not JSON: %s", bounded(repr(line[:200]), 300))
                await self._error(None, PARSE_ERROR, f"Parse error: {exc}")
                continue
            problem = _problem(message)
            if problem is None:
                return message  # type: ignore[no-any-return]
            request_id = message.get("id") if isinstance(message, dict) else None
            if not isinstance(request_id, int | str) or isinstance(request_id, bool):
                request_id = None
            await self._error(request_id, INVALID_REQUEST, f"Invalid request: {problem}")

    async def _read_line(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as exc:
                    chunks.append(await self._reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)

    async def close(self) -> None:
        """Close the output."""
        self._writer.close()


LIMIT = 64 * 1024 * 1024
"""Longest frame read at once (images in prompts are base64 text)."""


async def _serve(prefix: bytes, answered: RequestId | None, out_fd: int) -> None:
    from acp.agent.connection import AgentSideConnection

    from pi_lsp.acp.agent import PiAgent

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LIMIT)
    if prefix:
        reader.feed_data(prefix)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", buffering=0, closefd=False)
    )
    out = os.fdopen(out_fd, "wb", buffering=0)
    write_transport, write_protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(), out
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    transport = StdioTransport(reader, writer, answered_early=answered)
    agent = PiAgent()
    connection = AgentSideConnection(agent, transport, listening=False, use_unstable_protocol=True)
    try:
        await connection.listen()
    finally:
        await agent.shutdown()
        await connection.close()


def serve_acp(
    log_level: str = "warning", *, prefix: bytes = b"", answered: RequestId | None = None
) -> None:
    """Serve one ACP client on stdio; ``prefix``/``answered`` come from the early initialize."""
    from pi_lsp.daemon import log_to_stderr

    log_to_stderr(log_level)
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(_serve(prefix, answered, out_fd))

"""``pi-lsp --acp``'s wire: the ACP agent on stdin/stdout until the client closes the pipe.

- :func:`serve_acp`: stdout carries protocol frames only. The real descriptor is kept for the
  transport, and both ``sys.stdout`` and descriptor 1 are pointed at stderr, so a stray
  ``print`` (ours, a library's or a child process's) cannot corrupt the stream. Logs go to
  stderr.
- :class:`StdioTransport`: newline-delimited JSON-RPC, robust to bad frames. The SDK's own stdio
  transport skips a line that is not JSON without a word and stops the whole connection on a
  frame that is JSON but not an object; this one answers both as JSON-RPC says (``-32700``
  parse error, ``-32600`` invalid request, with ``id: null`` when none can be read) and goes on
  reading. It also drops the SDK's answer to an ``initialize`` answered early
  (:func:`pi_lsp.acp.early_initialize`), and encodes lone surrogates as escapes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

from acp.agent.connection import AgentSideConnection

from pi_lsp.acp import RequestId
from pi_lsp.acp.agent import PiAgent
from pi_lsp.daemon import log_to_stderr
from pi_lsp.daemon.errors import bounded

logger = logging.getLogger(__name__)

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
    log_to_stderr(log_level)
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(_serve(prefix, answered, out_fd))

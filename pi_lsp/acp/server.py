"""``pi-lsp --acp``: the ACP agent on stdin/stdout until the client closes the pipe.

stdout carries protocol frames only: the real descriptor is kept for the transport, and both
``sys.stdout`` and descriptor 1 are pointed at stderr, so a stray ``print`` (ours, a library's
or a child process's) cannot corrupt the stream. Logs go to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

from acp.agent.connection import AgentSideConnection

from pi_lsp.acp.agent import PiAgent
from pi_lsp.acp.transport import StdioTransport

LIMIT = 64 * 1024 * 1024
"""Longest frame read at once (images in prompts are base64 text)."""


def _setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level.upper())


async def _serve(prefix: bytes, answered: Any, out_fd: int) -> None:
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


def serve_acp(log_level: str = "warning", *, prefix: bytes = b"", answered: Any = None) -> None:
    """Serve one ACP client on stdio; ``prefix``/``answered`` come from the early initialize."""
    _setup_logging(log_level)
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(_serve(prefix, answered, out_fd))

"""The read loop: bytes from stdin or a socket, through the frame parser, into the protocol.

It replaces pygls's ``run_async`` (which trusted every ``Content-Length``): bytes are read as
they arrive (``read1`` on stdin in a worker thread, ``read`` on a socket), fed to a
:class:`~pi_lsp.protocol.framing.FrameParser`, and each event goes to
:meth:`~pi_lsp.protocol.wire.PiProtocol.receive`. A failure while handling one message is logged
and the loop goes on; the loop ends when the stream does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter

from pi_lsp.protocol.framing import Event, FrameParser
from pi_lsp.protocol.wire import PiProtocol

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
    server: Any,
    stdin: BinaryIO,
    stdout: BinaryIO,
    parser: FrameParser | None = None,
    pending: Iterable[Event] = (),
) -> None:
    """Serve ``server`` on a byte stream pair until the input ends."""
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)
    protocol.set_writer(StdoutWriter(stdout))

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def read() -> Awaitable[bytes]:
            return loop.run_in_executor(server.thread_pool, stdin.read1, CHUNK)  # type: ignore[attr-defined]

        await pump(read, protocol, parser or FrameParser(), pending)

    try:
        asyncio.run(main())
    except BrokenPipeError:
        logger.error("the editor closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()

"""Long requests with ``$/progress``: begin, end, and cancellation from the editor's button."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

from lsprotocol import types as T
from pygls.progress import Progress

from pi_lsp.daemon.tasks import spawn
from pi_lsp.protocol.context import PiLanguageServer

R = TypeVar("R")


async def with_progress(
    server: PiLanguageServer, title: str, work: Awaitable[R], on_cancel: Callable[[], None]
) -> R:
    """Await ``work`` inside a cancellable progress report.

    The editor's cancel button calls ``on_cancel``, looked up when pressed, so it reaches the
    work's current abort signal.
    """
    if not server.shows_progress:
        return await work
    progress = server.work_done_progress
    token = str(uuid.uuid4())
    try:
        await asyncio.wait_for(progress.create_async(token), 5)
    except Exception:  # a client that cannot show progress still gets the work done
        return await work
    progress.begin(token, T.WorkDoneProgressBegin(title=title, cancellable=True, message=title))
    watcher = spawn(_watch_cancel(progress, token, on_cancel), "watching $/progress cancel")
    try:
        result = await work
    except BaseException as exc:
        progress.end(
            token, T.WorkDoneProgressEnd(message=f"Failed: {exc}" if str(exc) else "Cancelled")
        )
        raise
    finally:
        watcher.cancel()
    progress.end(token, T.WorkDoneProgressEnd(message="Done"))
    return result


async def _watch_cancel(progress: Progress, token: str, on_cancel: Callable[[], None]) -> None:
    future = progress.tokens.get(token)
    if future is None:
        return
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wrap_future(future)
    if future.cancelled():
        on_cancel()

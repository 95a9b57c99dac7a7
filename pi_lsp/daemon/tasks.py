"""Background tasks that are never lost: a strong reference until done, and failures logged.

``asyncio`` keeps only a weak reference to a task, so a fire-and-forget ``ensure_future`` can be
collected mid-flight, and an exception nobody awaits surfaces (if ever) as "Task exception was
never retrieved". :func:`spawn` is the one way the daemon starts work nobody awaits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")
_running: set[object] = set()


def spawn(work: Awaitable[T], what: str) -> asyncio.Future[T]:
    """Run ``work`` in the background; if it fails, log ``what`` failed with the traceback."""
    task = asyncio.ensure_future(work)
    _running.add(task)
    task.add_done_callback(lambda done: _finished(done, what))
    return task


def _finished(task: asyncio.Future[T], what: str) -> None:
    _running.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        logger.error("%s failed", what, exc_info=error)

"""``session/update`` notifications in order, without making the agent wait for the pipe.

The daemon's events arrive through a synchronous sink in the middle of a turn; each becomes an
update queued here and written by one pump task, so updates leave in the order the events came.
``drain()`` waits until everything queued so far has been written: a prompt's answer is sent
only after its last update.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

logger = logging.getLogger(__name__)


class Outbox:
    """One connection's queue of updates."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None

    def send(self, session_id: str, update: Any) -> None:
        """Queue one update (the pump starts on first use)."""
        self._queue.put_nowait((session_id, update))
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._run())

    async def drain(self) -> None:
        """Wait until every queued update has been written (or failed)."""
        await self._queue.join()

    async def _run(self) -> None:
        while True:
            session_id, update = await self._queue.get()
            try:
                await self._client.session_update(session_id=session_id, update=update)
            except ConnectionError:
                pass  # the client went away: the turn still ends and is stored
            except Exception:
                logger.exception("sending %s failed", type(update).__name__)
            finally:
                self._queue.task_done()

"""Who may run when: one turn per session file across processes, background tasks in one.

One turn at a time per session file, across processes (two editors on one session).

Appends are already serialized by the session file's own lock; this lock is held for a whole
turn (and for compaction, navigation and other writes), so a second daemon never interleaves
its entries with a running turn. It is an ``flock`` on a small file under
``<agentDir>/pi-lsp/locks/`` named after the session file: the kernel releases it when the
process dies, so a crash never leaves a session locked. The lock file holds the holder's pid for
the "busy" message; writing it is best effort (a full disk must not leave a lock taken and
never given back). The daemon and ``pi-lsp run`` build it with :meth:`TurnLock.for_session`,
so both take the same lock for the same file, whichever path (or symlink) named it.

Background tasks that are never lost: a strong reference until done, and failures logged.

``asyncio`` keeps only a weak reference to a task, so a fire-and-forget ``ensure_future`` can be
collected mid-flight, and an exception nobody awaits surfaces (if ever) as "Task exception was
never retrieved". :func:`spawn` is the one way the daemon starts work nobody awaits.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

LOCK_SUBDIR = ("pi-lsp", "locks")


class SessionBusyError(RuntimeError):
    """Another process is running a turn on this session."""


class TurnLock:
    """An exclusive, non-blocking, process-wide lock for one session file."""

    def __init__(self, session_key: str, lock_dir: Path) -> None:
        digest = hashlib.sha256(session_key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self.path = lock_dir / f"{digest}.lock"
        self._fd: int | None = None
        self._depth = 0

    @classmethod
    def for_session(cls, path: Path | None, session_id: str, agent: Path) -> TurnLock:
        """The lock of a session file (its real path) or, for an in-memory session, its id."""
        key = os.path.realpath(path) if path is not None else session_id
        return cls(key, agent.joinpath(*LOCK_SUBDIR))

    @property
    def held(self) -> bool:
        """True while this process holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock (re-entrant in this process) or raise :class:`SessionBusyError`."""
        if self._fd is not None:
            self._depth += 1
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise SessionBusyError(
                f"Session is busy in another process (pid {holder}): a turn is running there; "
                "try again when it has finished"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        with contextlib.suppress(OSError):  # the pid only names the holder; the flock is the lock
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd, self._depth = fd, 1

    def release(self) -> None:
        """Give the lock back (the outermost release unlocks)."""
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def release_all(self) -> None:
        """Give the lock back whatever the depth (closing a session after its last write)."""
        if self._fd is not None:
            self._depth = 1
            self.release()

    def __enter__(self) -> TurnLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


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

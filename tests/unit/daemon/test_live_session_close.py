"""Closing a session while it compacts: the lock is given back only after the last write.

The compaction's summary request is replaced by one the test controls (no model call); the rest
(live session, store, turn lock, workspaces) is the daemon's own code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.compaction.models import CompactionDetails, CompactionResult
from pi_lsp.daemon.concurrency import SessionBusyError, TurnLock
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import Workspaces
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionFileError, SessionStore


class SlowSummary:
    """A compaction whose summary arrives when the test says (or stops when aborted)."""

    def __init__(self, live: LiveSession, *, honours_abort: bool) -> None:
        self.live = live
        self.honours_abort = honours_abort
        self.started = asyncio.Event()
        self.finish = asyncio.Event()

    async def __call__(self, _focus: str | None = None) -> Any:
        agent = self.live.agent
        agent._abort = asyncio.Event()  # as AgentSession.compact does, so abort() reaches it
        self.started.set()
        waits = [asyncio.ensure_future(self.finish.wait())]
        if self.honours_abort:
            waits.append(asyncio.ensure_future(agent._abort.wait()))
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for wait in waits:
            wait.cancel()
        if not self.finish.is_set():
            raise RuntimeError("Summarization aborted")
        store = self.live.store
        first = store.records[0].id
        store.append_compaction("summary", first, 100)
        return CompactionResult(
            summary="summary",
            first_kept_entry_id=first,
            tokens_before=100,
            details=CompactionDetails(read_files=[], modified_files=[]),
        )


async def _session(tmp_path: Path) -> tuple[Workspaces, LiveSession, Path]:
    agent = tmp_path / "agent"
    workspaces = Workspaces(lambda *_: None, agent=agent)
    workspaces.set_folders([(tmp_path.as_uri(), str(tmp_path))])
    live = await workspaces.new_session(None)
    live.store.append_message(user("q"))
    live.store.append_message(assistant("a"))
    assert live.store.path is not None
    return workspaces, live, live.store.path


def _other_daemon_can_take(path: Path, agent: Path) -> bool:
    other = TurnLock.for_session(path, "other", agent)
    try:
        other.acquire()
    except SessionBusyError:
        return False
    other.release()
    return True


async def test_close_aborts_the_compaction_and_frees_the_lock_after_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspaces, live, path = await _session(tmp_path)
    summary = SlowSummary(live, honours_abort=True)
    monkeypatch.setattr(live.agent, "compact", summary)
    compaction = asyncio.ensure_future(live.compact(None))
    await summary.started.wait()
    await workspaces.close(live.id)
    assert compaction.done()  # close returned only once the compaction had stopped
    with pytest.raises(RuntimeError, match="aborted"):
        compaction.result()
    summary.finish.set()  # a reply arriving late changes nothing any more
    await asyncio.sleep(0)
    assert [r.type for r in SessionStore.open(path).records] == ["message", "message"]
    assert _other_daemon_can_take(path, tmp_path / "agent")


async def test_close_waits_for_a_compaction_that_still_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspaces, live, path = await _session(tmp_path)
    summary = SlowSummary(live, honours_abort=False)  # its summary was already on the way
    monkeypatch.setattr(live.agent, "compact", summary)
    compaction = asyncio.ensure_future(live.compact(None))
    await summary.started.wait()
    closing = asyncio.ensure_future(workspaces.close(live.id))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not closing.done()
    assert not _other_daemon_can_take(path, tmp_path / "agent")  # still ours: it may write
    summary.finish.set()
    await closing
    assert compaction.done() and compaction.exception() is None
    types = [r.type for r in SessionStore.open(path).records]
    assert types == ["message", "message", "compaction"]  # written before the close ended
    assert _other_daemon_can_take(path, tmp_path / "agent")
    with pytest.raises(SessionFileError, match="closed"):
        live.store.append_message(user("after close"))

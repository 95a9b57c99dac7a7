"""A session open in the daemon: its agent, its event stream, its turn lock and its views.

Every event for the session (pi's agent events, entries appended here or by another process,
compaction and state changes) leaves through one sink with a gap-free sequence number, so an
editor can tell it missed nothing. Writes (a turn, compaction, navigation, labels, renames, model
changes) hold the session's cross-process turn lock; a second editor on the same file gets a
clear "busy in another process" error instead of interleaving its entries with a running turn.
Closing aborts the turn or compaction in progress and waits for its last write before the lock
is given back, so no entry of this session is ever written after another process took over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence

from pi_lsp.agent import AgentBusyError
from pi_lsp.agent.agent_session import AgentSession
from pi_lsp.agent.events import AgentEvent
from pi_lsp.agent.models import ModelInfo, ThinkingLevel, available_thinking_levels
from pi_lsp.compaction import CompactionResult
from pi_lsp.daemon.concurrency import TurnLock
from pi_lsp.daemon.views import (
    AbortResult,
    BranchResult,
    CompactionEnd,
    CompactionStart,
    EntryAppended,
    ForeignEntries,
    LabelResult,
    MessageUpdateOut,
    ModelState,
    PromptResult,
    QueueResult,
    SessionState,
    StateChanged,
    TreeView,
    TurnError,
    WireAgentEvent,
    WireEvent,
)
from pi_lsp.literals import StreamingBehavior
from pi_lsp.session.jsonl import JsonObject, Record, dumps
from pi_lsp.session.messages import ImageContent
from pi_lsp.settings import Settings

logger = logging.getLogger(__name__)

CLOSE_GRACE = 10.0
"""Seconds a close waits for an aborted compaction or navigation to stop by itself before it
is cancelled (a summary request that ignores the abort)."""

EventSink = Callable[[str, int, WireEvent], None]
"""``(session id, sequence number, event)``: sends one ``pi/event`` notification."""


def wire_event(event: AgentEvent) -> WireAgentEvent:
    """An agent event as sent to editors: streaming updates carry the delta, not the message."""
    if event["type"] != "message_update":
        return event
    sub = event["assistantMessageEvent"].copy()
    sub.pop("partial", None)
    out: MessageUpdateOut = {"type": "message_update", "assistantMessageEvent": sub}
    return out  # an annotated literal: this runs once per streamed chunk


class LiveSession:
    """One open session; see the module docstring."""

    def __init__(self, agent: AgentSession, sink: EventSink, lock: TurnLock, folder: str) -> None:
        self.agent = agent
        self.store = agent.store
        self.id = self.store.session_id
        self.folder = folder
        """The workspace folder (URI or path) the session belongs to."""
        self.seq = 0
        self._sink = sink
        self.lock = lock
        self.tree = TreeView(self.store)
        self._messages: tuple[tuple[str | None, int], bytes] | None = None
        self._run: asyncio.Future[None] | None = None
        self._writers: set[asyncio.Task[object]] = set()
        """Requests inside :meth:`writing` (compaction, navigation) that may still write."""
        self.closing = False
        self._foreign: list[str] | None = None
        """Ids of entries other programs appended during the running agent turn."""
        agent.subscribe(self._on_agent_event)
        self.store.add_listener(self._on_entries)

    # ----------------------------------------------------------------- events

    def emit(self, event: WireEvent) -> None:
        """Send one event with the next sequence number."""
        self.seq += 1
        try:
            self._sink(self.id, self.seq, event)
        except Exception:  # the editor going away must not break a turn
            logger.exception("sending event %s failed", event["type"])

    def _on_agent_event(self, event: AgentEvent) -> None:
        if event["type"] == "agent_start":
            self._foreign = []
        elif event["type"] == "agent_end":
            foreign, self._foreign = self._foreign, None
            if foreign:
                leaf = self.store.leaf_id
                self.emit(ForeignEntries(type="foreign_entries", entryIds=foreign, leafId=leaf))
        self.emit(wire_event(event))

    def _on_entries(self, records: list[Record], external: bool) -> None:
        for record in records:
            if self.store.get(record.id) is record:
                node = self.tree.node(record.id)
                self.emit(EntryAppended(type="entry_appended", entry=node, external=external))
        if external and records:
            if self._foreign is not None:
                self._foreign.extend(r.id for r in records)
            self.state_changed()  # the leaf and the counts moved with the other process's entries

    async def watch_file(self, interval: float = 0.25) -> None:
        """Notice what another process appends to the session file while no turn runs here.

        Two editors on one session: the one not running the turn sees the other's entries as
        ``entry_appended`` (``external: true``) when they are written, not at its next request.
        A cheap poll (``fstat`` under a shared lock) while this process holds no turn lock.
        """
        while True:
            await asyncio.sleep(interval)
            if self.lock.held or self.store.path is None or not self.store.path.exists():
                continue
            try:
                self.store.refresh()
            except Exception:  # a replaced or unreadable file: the next request reports it
                logger.warning("watching %s stopped", self.store.path, exc_info=True)
                return

    def state_changed(self) -> None:
        """Tell the editor the session's state changed (model, leaf, streaming, queues…)."""
        self.emit(StateChanged(type="state_changed", state=self.state()))

    def apply_settings(self, settings: Settings) -> None:
        """Use new settings from the next turn on (a running turn keeps its snapshot).

        See :meth:`pi_lsp.agent.agent_session.AgentSession.use_settings`.
        """
        self.agent.use_settings(settings)

    # ----------------------------------------------------------------- reading

    def state(self) -> JsonObject:
        """The session's state (``pi/session/state``)."""
        agent, store = self.agent, self.store
        model = agent.model
        return SessionState(
            sessionId=self.id,
            sessionFile=str(store.path) if store.path else None,
            sessionName=store.session_name,
            cwd=store.cwd,
            folder=self.folder,
            model=None
            if model is None
            else ModelState(
                provider=model.ref.provider,
                modelId=model.ref.model_id,
                contextWindow=model.context_window,
                reasoning=model.reasoning,
            ),
            thinkingLevel=agent.thinking_level,
            availableThinkingLevels=list(available_thinking_levels(model)) if model else ["off"],
            leafId=store.leaf_id,
            isStreaming=agent.is_streaming,
            isCompacting=agent.compacting,
            steeringQueue=agent.steering.texts(),
            followUpQueue=agent.follow_ups.texts(),
            contextUsage=agent.context_usage(),
            entryCount=store.entry_count,
            lastSeq=self.seq,
        ).model_dump(by_alias=True)

    def tree_json(self) -> bytes:
        """``pi/session/tree`` result as JSON bytes (see :class:`TreeView`)."""
        self.store.refresh()
        return self.tree.render()

    def messages_json(self) -> bytes:
        """``pi/session/messages``: the entries whose messages form the context, raw.

        Cached per (leaf, entry count): it only changes when an entry is appended or the leaf
        moves, so requests during a streaming reply cost a lookup.
        """
        self.store.refresh()
        key = (self.store.leaf_id, self.store.entry_count)
        if self._messages is not None and self._messages[0] == key:
            return self._messages[1]
        context = self.store.context()
        get = self.store.get
        ids = dict.fromkeys(context.entry_ids)  # a compaction may give two messages
        entries = b",".join(r.raw for i in ids if (r := get(i)) is not None)
        head = dumps({"sessionId": self.id, "leafId": self.store.leaf_id})
        data = head[:-1] + b',"entries":[' + entries + b"]}"
        self._messages = (key, data)
        return data

    # ----------------------------------------------------------------- writing

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] = (),
        streaming_behavior: StreamingBehavior | None = None,
    ) -> JsonObject:
        """Start a turn; returns once the user message is stored, with its entry id."""
        if self.agent.is_streaming:
            await self.agent.prompt(text, images, streaming_behavior=streaming_behavior)
            self.state_changed()
            return PromptResult(queued=True, userEntryId=None).model_dump()
        self._refuse_if_closing()
        self.lock.acquire()
        try:
            self.store.refresh()
            prompted = self.agent.start(text, images)
        except BaseException:
            self.lock.release()
            raise
        run, stored = prompted.run, prompted.user_entry_id
        self._run = run
        run.add_done_callback(self._finished)
        self.state_changed()
        entry_id = await stored
        if entry_id is not None:
            return PromptResult(queued=False, userEntryId=entry_id).model_dump()
        run.result()  # raises what stopped the prompt before the user message was stored
        raise RuntimeError("the prompt ended before its message was stored")

    async def turn_finished(self) -> None:
        """Return once the turn started by :meth:`prompt` (if any) has ended and released."""
        run = self._run
        if run is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(run)

    def _finished(self, task: asyncio.Future[None]) -> None:
        self.lock.release()
        if not task.cancelled() and task.exception() is not None:
            logger.error("turn failed", exc_info=task.exception())
            self.emit(TurnError(type="error", message=f"Turn failed: {task.exception()}"))
        self.state_changed()

    def queue(self, text: str, images: Sequence[ImageContent], kind: str) -> JsonObject:
        """Queue a steering or follow-up message (delivered by the running turn)."""
        if kind == "steer":
            self.agent.steer(text, images)
        else:
            self.agent.follow_up(text, images)
        self.state_changed()
        return QueueResult(queued=True).model_dump()

    async def abort(self) -> JsonObject:
        """Stop the turn; queued messages are dropped and their texts returned."""
        texts = self.agent.drop_queued()
        await self.agent.abort()
        if self._run is not None:
            with contextlib.suppress(BaseException):
                await self._run
        return AbortResult(queuedTexts=texts).model_dump()

    async def compact(self, focus: str | None) -> CompactionResult:
        """Manual compaction, announced as ``compaction_start``/``compaction_end`` events."""
        with self.writing():
            self.emit(CompactionStart(type="compaction_start", reason="manual"))
            try:
                result = await self.agent.compact(focus)
            except BaseException as exc:
                message = (
                    "Compaction cancelled" if isinstance(exc, asyncio.CancelledError) else str(exc)
                )
                self.emit(CompactionEnd(type="compaction_end", errorMessage=message))
                raise
            dumped = result.model_dump(mode="json", by_alias=True)
            self.emit(CompactionEnd(type="compaction_end", result=dumped))
            return result

    async def navigate(
        self, entry_id: str, *, summarize: bool, focus: str | None, label: str | None
    ) -> JsonObject:
        """Move the leaf to an entry (optionally summarizing the branch left)."""
        with self.writing():
            result = await self.agent.navigate(
                entry_id, summarize=summarize, focus=focus, label=label
            )
        return BranchResult(
            leafId=result.leaf_id,
            editorText=result.editor_text,
            summaryEntryId=result.summary_entry_id,
            moved=result.moved,
        ).model_dump()

    def label(self, entry_id: str, label: str | None) -> JsonObject:
        """Set or clear a bookmark."""
        with self.writing():
            label_id = self.store.append_label(entry_id, label or None)
        return LabelResult(labelEntryId=label_id).model_dump()

    def rename(self, name: str) -> JsonObject:
        """Name the session."""
        if not name.strip():
            raise ValueError("Session name cannot be empty")
        with self.writing():
            self.store.append_session_info(name)
        return self.state()

    def set_model(self, model: ModelInfo) -> None:
        """Switch model (``model_change``, pi's thinking level for it); refused during a turn."""
        with self.writing():
            self.agent.switch_model(model)

    def set_roots(self, roots: list[str]) -> None:
        """The workspace folders changed: writes inside ``roots`` need no permission."""
        self.agent.set_roots(roots)

    @property
    def abort_signal(self) -> asyncio.Event:
        """Set while the running turn or compaction is being aborted (to wait on, not to set)."""
        return self.agent.abort_event

    def request_abort(self) -> None:
        """Signal the running turn or compaction to stop, without waiting for it."""
        self.agent.request_abort()

    def set_thinking_level(self, level: ThinkingLevel) -> JsonObject:
        """Change the thinking level (clamped to the model)."""
        with self.writing():
            self.agent.set_thinking_level(level)
        return self.state()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the session for a write: refused during a turn, under the cross-process lock.

        The store is refreshed first (another process may have appended), and the editor hears
        of the new state afterwards.
        """
        if self.agent.is_streaming:
            raise AgentBusyError("The agent is running: abort it first")
        self._refuse_if_closing()
        self.lock.acquire()
        task = asyncio.current_task()
        if task is not None:
            self._writers.add(task)
        try:
            self.store.refresh()
            yield
        finally:
            if task is not None:
                self._writers.discard(task)
            self.lock.release()
            self.state_changed()

    def _refuse_if_closing(self) -> None:
        if self.closing:
            raise AgentBusyError("The session is being closed")

    async def close(self) -> None:
        """Abort any turn or compaction, wait for its last write, then release lock and file."""
        self.closing = True
        if self.agent.is_streaming:
            await self.abort()
        writers = self._writers - {asyncio.current_task()}
        if writers:
            await self.agent.abort()  # the summary request of a compaction or navigation stops
            _, stubborn = await asyncio.wait(writers, timeout=CLOSE_GRACE)
            for task in stubborn:
                task.cancel()
            if stubborn:
                await asyncio.wait(stubborn)
        self.store.close()  # from here on a stray write raises instead of reaching the file
        self.lock.release_all()
        self.agent.close()  # bash's full-output files go with it

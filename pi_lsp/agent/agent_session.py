"""AgentSession: runs prompts against one session store (pi's ``AgentSession``, spec §11, §6.7).

It owns the run state around :func:`pi_lsp.agent.loop.run_loop`: the model, thinking level,
steering and follow-up queues and the abort signal. It persists each message when it ends, as an
explicit step (:meth:`AgentSession._on_loop_event`) before listeners hear of it;
:meth:`AgentSession.emit` only notifies. :class:`~pi_lsp.agent.maintenance.Maintenance` owns
retries, recovery and automatic compaction: it drives the loop this session hands it, with the
run's values (:class:`~pi_lsp.agent.maintenance.RunValues`). :func:`create_agent_session` builds
one from :func:`pi_lsp.agent.assemble`'s parts.

Settings are snapshotted when a run starts: :meth:`AgentSession.use_settings` during a run
takes effect when it ends (the next run sees them), never halfway through a turn. The rule is in
``CONTRIBUTING.md``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence

from pi_lsp.agent import (
    AgentBusyError,
    AgentConfig,
    AgentOptions,
    MessageQueue,
    NoModelError,
    Prompted,
    assemble,
    user_message,
)
from pi_lsp.agent.events import AgentEvent, MessageEnd
from pi_lsp.agent.llm import ProviderFailure
from pi_lsp.agent.loop import LoopHooks, ReplyStream, run_loop
from pi_lsp.agent.maintenance import Maintenance, RunValues
from pi_lsp.agent.model_choice import no_model_message, settings_default
from pi_lsp.agent.models import ModelInfo, ThinkingLevel, clamp_thinking_level
from pi_lsp.compaction import (
    CompactionResult,
    NavigationResult,
    compact,
    context_usage,
    navigate_tree,
)
from pi_lsp.compaction.models import ContextUsage
from pi_lsp.literals import StreamingBehavior
from pi_lsp.session import ABSENT, SessionStore
from pi_lsp.session.messages import ContextMessage, ImageContent, UserMessage
from pi_lsp.settings import Settings

logger = logging.getLogger(__name__)

Listener = Callable[[AgentEvent], None]


class AgentSession:
    """One session's agent: prompt, steer, follow up, abort, compact, change model or level."""

    def __init__(
        self,
        store: SessionStore,
        config: AgentConfig,
        *,
        model: ModelInfo | None,
        thinking_level: ThinkingLevel = "medium",
    ) -> None:
        self.store = store
        self.config = config
        self.model = model
        self.thinking_level: ThinkingLevel = (
            clamp_thinking_level(model, thinking_level) if model else "off"
        )
        self._last_stream: ReplyStream | None = None
        self.steering = MessageQueue(config.settings.steeringMode)
        self.follow_ups = MessageQueue(config.settings.followUpMode)
        self._compacting = False
        self._listeners: list[Listener] = []
        self._abort = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._maintenance = Maintenance(store, config.counter, self.emit)
        self._run: RunValues | None = None
        """The running prompt's values (its settings snapshot), None between runs."""
        self._next_settings: Settings | None = None
        """Settings given during a run, applied when it ends."""
        self._prompt_message: ContextMessage | None = None
        self._prompt_stored: asyncio.Future[str | None] | None = None

    @property
    def is_streaming(self) -> bool:
        """True while a run is going on."""
        return not self._idle.is_set()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def context_usage(self) -> ContextUsage | None:
        """Estimated context tokens and percent of the window (unknown just after compacting)."""
        if self.model is None:
            return None
        return context_usage(self.store, self.config.counter, self.model.context_window)

    @property
    def compacting(self) -> bool:
        """True while a manual or automatic compaction runs."""
        return self._compacting or self._maintenance.compacting

    @property
    def abort_event(self) -> asyncio.Event:
        """Set when the current run (or compaction) is being aborted (read-only: to wait on)."""
        return self._abort

    def request_abort(self) -> None:
        """Signal the current run or compaction to stop, without waiting (see :meth:`abort`)."""
        self._abort.set()

    def use_settings(self, settings: Settings) -> None:
        """Use ``settings`` from the next run on: now when idle, else when the run ends.

        Covers everything read from settings: compaction, retry, thinking budgets, images,
        queue modes, permissions, ``apiBase`` and bash's ``shellPath`` / ``shellCommandPrefix``.
        The model's description (context window overrides) is kept until the model changes.
        """
        if self.is_streaming:
            self._next_settings = settings
            return
        self._next_settings = None
        self.config.use(settings)
        self.steering.mode = settings.steeringMode
        self.follow_ups.mode = settings.followUpMode

    def set_roots(self, roots: list[str]) -> None:
        """The folders writes inside need no permission for (the workspace folders changed)."""
        self.config.set_roots(roots)

    def close(self) -> None:
        """Release what the tools keep (bash's full-output files); the session is done."""
        self.config.close()

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] = (),
        *,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> None:
        """Run a prompt to the end (tools, retries, compaction included).

        While a run is going on, ``streaming_behavior`` ``steer`` or ``followUp`` queues the
        message instead; without it the prompt is refused with :class:`AgentBusyError`.
        """
        message = user_message(text, images)
        if self.is_streaming and streaming_behavior == "steer":
            self.steering.push(message)
        elif self.is_streaming and streaming_behavior == "followUp":
            self.follow_ups.push(message)
        else:
            await self._prompt(message)

    def start(self, text: str, images: Sequence[ImageContent] = ()) -> Prompted:
        """Start a prompt as a task; its user message's entry id comes back as a value.

        :attr:`Prompted.user_entry_id` resolves to the id once the message is stored, or to
        None if the run ends before that; :attr:`Prompted.run` is the whole run (what stopped
        it, if anything, is its exception).
        """
        message = user_message(text, images)
        stored: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._prompt_message, self._prompt_stored = message, stored
        run = asyncio.ensure_future(self._prompt(message))

        def ended(_: asyncio.Future[None]) -> None:
            if not stored.done():
                stored.set_result(None)

        run.add_done_callback(ended)
        return Prompted(user_entry_id=stored, run=run)

    async def _prompt(self, message: ContextMessage) -> None:
        """Run ``message`` to the end: one run at a time, on the settings it started with."""
        if self.is_streaming:
            raise AgentBusyError(
                "Agent is already processing. Use steer or follow-up to queue the message."
            )
        model, summarizer = self.require_model(), self.config.summarizer
        self._idle.clear()
        abort = self._abort = asyncio.Event()
        try:
            settings = self.config.settings.for_model(model.ref.provider, model.ref.model_id)
            run = self._run = RunValues(settings, model, abort, lambda: summarizer(model, abort))
            with self.store.own_chain():  # pi appending meanwhile never becomes our parent
                self.set_model(model)  # pi starts a session with model and thinking level entries
                await self._maintenance.threshold(run)
                self._maintenance.new_prompt()
                await self._maintenance.drive(
                    run, [message], self._loop, self._failure, self._queued
                )
        finally:
            self._run = None
            self._idle.set()
            if self._next_settings is not None:
                self.use_settings(self._next_settings)

    def steer(self, text: str, images: Sequence[ImageContent] = ()) -> None:
        """Queue a message delivered before the next model call (remaining tools are skipped)."""
        self.steering.push(user_message(text, images))

    def follow_up(self, text: str, images: Sequence[ImageContent] = ()) -> None:
        """Queue a message delivered when the agent would otherwise stop."""
        self.follow_ups.push(user_message(text, images))

    def drop_queued(self) -> list[str]:
        """Empty both queues; returns the dropped messages' texts, steering first."""
        texts = [*self.steering.texts(), *self.follow_ups.texts()]
        self.steering.clear()
        self.follow_ups.clear()
        return texts

    async def abort(self) -> None:
        """Stop the run: the partial reply is stored as aborted, running tools are killed."""
        self._abort.set()
        await self._idle.wait()

    async def compact(self, focus: str | None = None) -> CompactionResult:
        """Compact now (pi's manual ``/compact``); a running turn is aborted first."""
        model = self.require_model()
        if self.is_streaming:
            await self.abort()
        self._abort = asyncio.Event()
        self._compacting = True
        try:
            return await compact(
                self.store,
                self.config.summarizer(model, self._abort),
                self.config.settings.compaction.for_model(model.ref.provider, model.ref.model_id),
                focus,
                counter=self.config.counter,
            )
        finally:
            self._compacting = False

    async def navigate(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        focus: str | None = None,
        label: str | None = None,
    ) -> NavigationResult:
        """Move to any entry (pi's tree navigation), optionally summarizing the branch left.

        A user-message target puts its text back for editing and the leaf goes to its parent.
        Not allowed while a run is going on (abort it first).
        """
        if self.is_streaming:
            raise AgentBusyError("Cannot move in the tree while the agent is running; abort first.")
        model = self.require_model() if summarize else None
        self._abort = asyncio.Event()
        return await navigate_tree(
            self.store,
            target_id,
            model=self.config.summarizer(model, self._abort) if model else None,
            summarize=summarize,
            settings=self.config.settings.branchSummary,
            focus=focus,
            label=label,
            counter=self.config.counter,
        )

    def set_model(self, model: ModelInfo) -> None:
        """Switch model (recorded as ``model_change``); the thinking level is re-clamped."""
        self.model = model
        current = self.store.context().model
        if current != {"provider": model.ref.provider, "modelId": model.ref.model_id}:
            self.store.append_model_change(model.ref.provider, model.ref.model_id)
        self.set_thinking_level(self.thinking_level)

    def switch_model(self, model: ModelInfo) -> None:
        """The user picks another model: pi 1.6.0's ``setModel``.

        Its thinking level is the model's ``modelThinkingLevels`` entry, else
        ``defaultThinkingLevel``, else the current level (clamped to the model).
        """
        level = self.config.settings.thinking_level_for(model.ref.provider, model.ref.model_id)
        if level is not None:
            self.thinking_level = level
        self.set_model(model)

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        """Change the thinking level (recorded only when the effective level changes)."""
        effective: ThinkingLevel = clamp_thinking_level(self.model, level) if self.model else "off"
        context = self.store.context()
        if not context.has_thinking_entry or context.thinking_level != effective:
            self.store.append_thinking_level_change(effective)
        self.thinking_level = effective

    def require_model(self) -> ModelInfo:
        """The selected model; raises :class:`NoModelError` when there is none."""
        if self.model is None:
            default = settings_default(self.config.settings)
            raise NoModelError(no_model_message(default))
        return self.model

    async def _loop(self, prompts: Sequence[ContextMessage]) -> list[ContextMessage]:
        """One run of the loop over the store's context (more prompts may follow a retry)."""
        # the context holds the entries' parsed JSON: pi's message types, not validated on
        # load (D1; pi types ``JSON.parse`` output the same way)
        messages = self.store.context().messages
        return await run_loop(messages, prompts, self._hooks(), self._abort)

    def _failure(self) -> ProviderFailure | None:
        """Why the last model call failed, if it did (its server-requested delay, say)."""
        return getattr(self._last_stream, "failure", None)

    def _queued(self) -> list[UserMessage]:
        """The queued messages to deliver next: steering first, else follow-ups."""
        return self.steering.take() or self.follow_ups.take()

    def _hooks(self) -> LoopHooks:
        config, gate = self.config, self.config.permissions
        return LoopHooks(
            stream=self._stream,
            tools={n: t for n, t in config.tools.items() if n in config.active_tools},
            emit=self._on_loop_event,
            steering=self.steering.take,
            follow_up=self.follow_ups.take,
            before_tool=None if gate is None else functools.partial(gate.check, cwd=config.cwd),
        )

    def _stream(self, messages: list[ContextMessage], abort: asyncio.Event) -> ReplyStream:
        settings = self._run.settings if self._run is not None else self.config.settings
        model, level = self.require_model(), self.thinking_level
        stream = self.config.stream(self.config.request(model, messages, level, settings, abort))
        self._last_stream = stream
        return stream

    def _on_loop_event(self, payload: AgentEvent) -> None:
        """An event of the loop: a finished message is persisted first, then everyone hears.

        The listeners get a copy of ``message_end`` with the stored entry's ``entryId``.
        """
        if payload["type"] == "message_end":
            message = payload["message"]
            entry_id = self._persist(message)
            payload = MessageEnd(type="message_end", message=message, entryId=entry_id)
            stored = self._prompt_stored
            if message is self._prompt_message and stored is not None and not stored.done():
                stored.set_result(entry_id)
        self.emit(payload)

    def emit(self, payload: AgentEvent) -> None:
        """Notify every listener of ``payload`` (it is not changed)."""
        for listener in list(self._listeners):
            try:
                listener(payload)
            except Exception:  # a broken listener must not break the run
                logger.exception("agent event listener failed on %s", payload["type"])

    def _persist(self, message: ContextMessage) -> str:
        if message["role"] != "custom":
            return self.store.append_message(message)
        return self.store.append_custom_message(
            str(message.get("customType")),
            message.get("content"),
            bool(message.get("display")),
            message.get("details", ABSENT),
        )


async def create_agent_session(
    store: SessionStore, cwd: str, settings: Settings, options: AgentOptions | None = None
) -> AgentSession:
    """An agent session over ``store`` for ``cwd``; litellm is imported only by a model call."""
    parts = await assemble(store, cwd, settings, options)
    return AgentSession(store, parts.config, model=parts.model, thinking_level=parts.thinking_level)

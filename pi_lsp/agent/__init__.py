"""One agent turn: what an agent session is made of, takes in, and how its parts are chosen.

The package's modules are the turn (:mod:`~pi_lsp.agent.loop`, :mod:`~pi_lsp.agent.stream`, …);
this front module holds what every session is built from (pi's ``AgentSession`` inputs, spec §11):
:class:`AgentConfig` (settings in force, tools, connection, permission gate), pi's prompt message
(:func:`user_message`), the steering and follow-up :class:`MessageQueue`, the session's errors,
and the defaults a session starts with (:func:`assemble`, used by
:func:`~pi_lsp.agent.agent_session.create_agent_session` for ``pi-lsp run``, the demo and the
daemon). Defaults come in this order: an explicit argument, then the session's own history (the
model and thinking level on its active path), then the settings files, then pi's fallbacks
(thinking ``medium``).

Steering messages interrupt: the loop takes them at its start and after every tool call.
Follow-ups wait until the agent would otherwise stop. In ``one-at-a-time`` mode each poll takes
one message; in ``all`` mode it takes everything queued.

Plain Python: never imports pygls or lsprotocol, and never imports litellm at module level
(:mod:`pi_lsp.agent.llm` imports it lazily, off the event loop).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pi_lsp.agent.loop import ReplyStream, now_ms
from pi_lsp.agent.model_choice import configured_models, initial_model, settings_default
from pi_lsp.agent.models import THINKING_LEVELS, ModelInfo, ModelRef, ThinkingLevel, resolve_model
from pi_lsp.agent.permissions import PermissionGate
from pi_lsp.agent.provider_messages import ToolSpec
from pi_lsp.agent.stream import Endpoint, LitellmTextModel, ModelRequest, stream_assistant
from pi_lsp.compaction import SummaryModel, TokenCounter, estimator_for
from pi_lsp.compaction.summarize import text_of
from pi_lsp.literals import DEFAULT_ACTIVE_TOOLS, QueueMode
from pi_lsp.prompt import PromptSourcesCache, build_system_prompt
from pi_lsp.session import SessionStore
from pi_lsp.session.messages import (
    ContentBlock,
    ContextMessage,
    ImageContent,
    TextContent,
    UserMessage,
)
from pi_lsp.settings import Settings
from pi_lsp.tools import (
    BashTool,
    FileSystem,
    GrepTool,
    ShellSettings,
    Tool,
    close_tools,
    create_tools,
)

StreamFactory = Callable[[ModelRequest], ReplyStream]
SummaryFactory = Callable[[ModelInfo, Endpoint, asyncio.Event], SummaryModel]
PromptBuilder = Callable[[Sequence[Tool[Any]]], str]
logger = logging.getLogger(__name__)


class AgentBusyError(RuntimeError):
    """A prompt arrived while a run is going on and no queueing was asked for."""


class NoModelError(RuntimeError):
    """No model is selected."""


def user_message(text: str, images: Sequence[ImageContent] = ()) -> UserMessage:
    """pi's prompt message: the text block first, then images."""
    content: list[ContentBlock] = [TextContent(type="text", text=text), *images]
    return UserMessage(role="user", content=content, timestamp=now_ms())


class MessageQueue:
    """A FIFO of user messages with pi's delivery mode."""

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: deque[UserMessage] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def push(self, message: UserMessage) -> None:
        """Queue a message."""
        self._items.append(message)

    def take(self) -> list[UserMessage]:
        """Messages to deliver now: one, or all of them in ``all`` mode."""
        if not self._items:
            return []
        if self.mode == "all":
            return self.clear()
        return [self._items.popleft()]

    def clear(self) -> list[UserMessage]:
        """Drop everything queued; returns it (pi restores the texts to the editor on abort)."""
        taken = list(self._items)
        self._items.clear()
        return taken

    def texts(self) -> list[str]:
        """The queued messages' text, for state reports."""
        return [text_of(m["content"]) for m in self._items]


@dataclass(frozen=True)
class Prompted:
    """A started prompt: its stored user message's entry id (when stored) and its run."""

    user_entry_id: asyncio.Future[str | None]
    run: asyncio.Future[None]


@dataclass(kw_only=True)
class AgentConfig:
    """What an agent session needs besides its store."""

    settings: Settings
    tools: dict[str, Tool[Any]]
    active_tools: tuple[str, ...]
    system_prompt: PromptBuilder
    """Builds the system prompt for the active tools (called before every model call)."""
    stream: StreamFactory
    summary_model: SummaryFactory
    counter: TokenCounter = field(default_factory=TokenCounter)
    endpoint: Endpoint = field(default_factory=Endpoint)
    cwd: str = "."
    """The working directory tools resolve paths against."""
    permissions: PermissionGate | None = None
    """Asked before bash and writes outside the workspace; None runs everything (CLI)."""

    _specs: tuple[tuple[str, ...], list[ToolSpec]] | None = field(
        default=None, init=False, repr=False
    )

    def active(self) -> list[Tool[Any]]:
        """The active tools, in :attr:`active_tools` order."""
        return [self.tools[n] for n in self.active_tools if n in self.tools]

    def tool_specs(self, active: list[Tool[Any]]) -> list[ToolSpec]:
        """``(name, description, schema)`` of ``active``, built once per tool set."""
        key = tuple(t.name for t in active)
        if self._specs is None or self._specs[0] != key:
            self._specs = (key, [(t.name, t.description, t.parameters) for t in active])
        return self._specs[1]

    def request(
        self,
        model: ModelInfo,
        messages: list[ContextMessage],
        thinking_level: ThinkingLevel,
        settings: Settings,
        abort: asyncio.Event,
    ) -> ModelRequest:
        """One model call: the active tools' system prompt and specs, ``settings``' budgets."""
        active = self.active()
        return ModelRequest(
            model=model,
            messages=messages,
            system_prompt=self.system_prompt(active),
            tools=self.tool_specs(active),
            thinking_level=thinking_level,
            thinking_budgets=settings.thinkingBudgets,
            block_images=settings.images.blockImages,
            endpoint=self.endpoint,
            abort=abort,
        )

    def summarizer(self, model: ModelInfo, abort: asyncio.Event) -> SummaryModel:
        """The model that writes compaction and branch summaries, over this connection."""
        return self.summary_model(model, self.endpoint, abort)

    def use(self, settings: Settings) -> None:
        """Take new settings: the connection, bash's shell and the permission rules follow."""
        self.settings = settings
        self.endpoint = replace(self.endpoint, api_base=settings.apiBase)
        bash = self.tools.get("bash")
        if isinstance(bash, BashTool):
            bash.settings = _shell(settings)
        if self.permissions is not None:
            self.permissions.settings = settings.permissions

    def set_roots(self, roots: list[str]) -> None:
        """The folders writes inside need no permission for."""
        if self.permissions is not None:
            self.permissions.roots = roots

    def close(self) -> None:
        """Release what the tools keep (bash's full-output files)."""
        close_tools(self.tools)


@dataclass(frozen=True, kw_only=True)
class AgentOptions:
    """Choices a caller may make; None means "use the session, then the settings"."""

    model: str | None = None
    """``provider/model``."""
    thinking_level: str | None = None
    active_tools: tuple[str, ...] | None = None
    """None: the ``defaultTools`` setting, else pi's four."""
    fs: FileSystem | None = None
    """Where ``read``/``write``/``edit`` go (the disk by default; the daemon passes the editor)."""
    stream: StreamFactory = stream_assistant
    project: PromptSourcesCache | None = None
    """Shared AGENTS.md cache (one per daemon)."""
    permissions: PermissionGate | None = None
    """Asked before bash and outside writes; None (the CLI) runs everything."""


def choose_model_ref(
    store: SessionStore, settings: Settings, explicit: str | None
) -> ModelRef | None:
    """The model to use, by pi 1.6.0's rule (:mod:`pi_lsp.agent.model_choice`).

    Explicit, else the session's if its provider has a key, else the settings default if its
    provider has one, else the first keyed provider's default model.
    """
    context = store.context()
    current = context.model
    choice = initial_model(
        explicit=ModelRef.parse(explicit, default_provider=settings.defaultProvider)
        if explicit
        else None,
        session_model=ModelRef(str(current["provider"]), str(current["modelId"]))
        if current and current.get("provider") and current.get("modelId")
        else None,
        has_messages=bool(context.messages),
        default=settings_default(settings),
        configured=configured_models(settings),
    )
    if choice.note:
        logger.warning("%s", choice.note)
    return choice.ref


def choose_thinking_level(
    store: SessionStore, settings: Settings, explicit: str | None, ref: ModelRef | None = None
) -> ThinkingLevel:
    """The thinking level a session starts with, in pi 1.6.0's order.

    Explicit, else the active path's, else (a session without messages only) the model's
    ``modelThinkingLevels`` entry, else the settings default, else ``medium``.
    """
    context = store.context()
    fresh = ref is not None and not context.messages
    for candidate in (
        explicit,
        context.thinking_level if context.has_thinking_entry else None,
        settings.thinking_level_for(ref.provider, ref.model_id) if fresh and ref else None,
        settings.defaultThinkingLevel,
        "medium",
    ):
        level = next((lvl for lvl in THINKING_LEVELS if lvl == candidate), None)
        if level is not None:
            return level
    return "medium"


async def resolve(ref: ModelRef, settings: Settings) -> ModelInfo:
    """litellm's model data with the settings' overrides (``models["provider/model"]``).

    litellm is not imported for this (its model table is read directly until it is).
    """
    override = settings.models.get(f"{ref.provider}/{ref.model_id}")
    return resolve_model(
        ref,
        context_window=override.contextWindow if override else None,
        max_output_tokens=override.maxTokens if override else None,
        reasoning=override.reasoning if override else None,
    )


@dataclass(frozen=True, kw_only=True)
class Assembled:
    """What a new agent session starts with: its config, model and thinking level."""

    config: AgentConfig
    model: ModelInfo | None
    thinking_level: ThinkingLevel


async def assemble(
    store: SessionStore, cwd: str, settings: Settings, options: AgentOptions | None = None
) -> Assembled:
    """The parts of an agent session over ``store`` for ``cwd`` (litellm is not imported)."""
    options = options or AgentOptions()
    ref = choose_model_ref(store, settings, options.model)
    model = await resolve(ref, settings) if ref is not None else None
    provider = settings.retry.provider
    endpoint = Endpoint(
        api_base=settings.apiBase,
        timeout=provider.timeoutMs / 1000 if provider.timeoutMs is not None else None,
        max_retries=provider.maxRetries or 0,
    )
    tools = create_tools(cwd, fs=options.fs, shell=_shell(settings))
    if options.permissions is not None:  # a directory grep must not read secrets unasked
        grep = tools.get("grep")
        if isinstance(grep, GrepTool):
            grep.skip_file = options.permissions.is_secret
    project = options.project or PromptSourcesCache()

    def system_prompt(active: Sequence[Tool[Any]]) -> str:
        return build_system_prompt(project.get(cwd), tools=[(t.name, t.summary) for t in active])

    def summary_model(info: ModelInfo, endpoint: Endpoint, abort: asyncio.Event) -> SummaryModel:
        return LitellmTextModel(model=info, endpoint=endpoint, abort=abort)

    config = AgentConfig(
        settings=settings,
        tools=dict(tools),
        active_tools=options.active_tools or settings.default_tool_names() or DEFAULT_ACTIVE_TOOLS,
        system_prompt=system_prompt,
        stream=options.stream,
        summary_model=summary_model,
        counter=TokenCounter(estimator_for("tiktoken", ref.model_id if ref else None)),
        endpoint=endpoint,
        cwd=cwd,
        permissions=options.permissions,
    )
    thinking = choose_thinking_level(store, settings, options.thinking_level, ref)
    return Assembled(config=config, model=model, thinking_level=thinking)


def _shell(settings: Settings) -> ShellSettings:
    return ShellSettings(shell_path=settings.shellPath, command_prefix=settings.shellCommandPrefix)

"""Assembling an :class:`AgentSession` for a working directory: model, tools, prompt, settings.

The one place that decides defaults, in this order: an explicit argument, then the session's own
history (the model and thinking level on its active path), then the settings files, then pi's
fallbacks (thinking ``medium``). Used by ``pi-lsp run``, the demo and the daemon.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.agent.agent_session import AgentSession
from pi_lsp.agent.config import AgentConfig, StreamFactory
from pi_lsp.agent.models import THINKING_LEVELS, ModelInfo, ModelRef, ThinkingLevel, resolve_model
from pi_lsp.agent.permissions import PermissionGate
from pi_lsp.agent.stream import Endpoint, LitellmTextModel, stream_assistant
from pi_lsp.compaction import SummaryModel, TokenCounter, estimator_for
from pi_lsp.literals import DEFAULT_ACTIVE_TOOLS
from pi_lsp.prompt import PromptSourcesCache, build_system_prompt
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings
from pi_lsp.tools import (
    FileSystem,
    GrepTool,
    ShellSettings,
    Tool,
    create_tools,
)


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
    """The model to use: explicit, else the session's, else the settings default."""
    if explicit:
        return ModelRef.parse(explicit, default_provider=settings.defaultProvider)
    current = store.context().model
    if current and current.get("provider") and current.get("modelId"):
        return ModelRef(str(current["provider"]), str(current["modelId"]))
    if settings.defaultModel:
        return ModelRef.parse(settings.defaultModel, default_provider=settings.defaultProvider)
    return None


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


async def create_agent_session(
    store: SessionStore, cwd: str, settings: Settings, options: AgentOptions | None = None
) -> AgentSession:
    """An agent session over ``store`` for ``cwd``; imports litellm only if a model is chosen."""
    options = options or AgentOptions()
    ref = choose_model_ref(store, settings, options.model)
    model = await resolve(ref, settings) if ref is not None else None
    provider = settings.retry.provider
    endpoint = Endpoint(
        api_base=settings.apiBase,
        timeout=provider.timeoutMs / 1000 if provider.timeoutMs is not None else None,
        max_retries=provider.maxRetries or 0,
    )
    tools = create_tools(
        cwd,
        fs=options.fs,
        shell=ShellSettings(
            shell_path=settings.shellPath, command_prefix=settings.shellCommandPrefix
        ),
    )
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
    return AgentSession(store, config, model=model, thinking_level=thinking)

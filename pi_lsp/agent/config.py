"""What an agent session is made of and takes in (pi's ``AgentSession`` inputs, spec §11).

:class:`AgentConfig` is everything a session needs besides its store; :func:`user_message` is
pi's prompt message; :class:`MessageQueue` holds steering and follow-up messages. Steering
messages interrupt: the loop takes them at its start and after every tool call. Follow-ups wait
until the agent would otherwise stop. In ``one-at-a-time`` mode each poll takes one message; in
``all`` mode it takes everything queued.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pi_lsp.agent.loop import ReplyStream, now_ms
from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.permissions import PermissionGate
from pi_lsp.agent.provider_messages import ToolSpec
from pi_lsp.agent.stream import Endpoint, ModelRequest
from pi_lsp.compaction import SummaryModel, TokenCounter
from pi_lsp.literals import QueueMode as QueueMode
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.settings import Settings
from pi_lsp.tools import BashTool, ShellSettings, Tool, close_tools


class MessageQueue:
    """A FIFO of user messages with pi's delivery mode."""

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: deque[JsonObject] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def push(self, message: JsonObject) -> None:
        """Queue a message."""
        self._items.append(message)

    def take(self) -> list[JsonObject]:
        """Messages to deliver now: one, or all of them in ``all`` mode."""
        if not self._items:
            return []
        if self.mode == "all":
            taken = list(self._items)
            self._items.clear()
            return taken
        return [self._items.popleft()]

    def clear(self) -> list[JsonObject]:
        """Drop everything queued; returns it (pi restores the texts to the editor on abort)."""
        taken = list(self._items)
        self._items.clear()
        return taken

    def texts(self) -> list[str]:
        """The queued messages' text, for state reports."""
        return [_text(m) for m in self._items]


def _text(message: JsonObject) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""


StreamFactory = Callable[[ModelRequest], ReplyStream]
SummaryFactory = Callable[[ModelInfo, Endpoint, asyncio.Event], SummaryModel]
PromptBuilder = Callable[[Sequence[Tool[Any]]], str]


@dataclass(frozen=True)
class Prompted:
    """A started prompt: its stored user message's entry id (when stored) and its run."""

    user_entry_id: asyncio.Future[str | None]
    run: asyncio.Future[None]


class AgentBusyError(RuntimeError):
    """A prompt arrived while a run is going on and no queueing was asked for."""


class NoModelError(RuntimeError):
    """No model is selected."""


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

    def use(self, settings: Settings) -> None:
        """Take new settings: the connection, bash's shell and the permission rules follow."""
        self.settings = settings
        self.endpoint = replace(self.endpoint, api_base=settings.apiBase)
        bash = self.tools.get("bash")
        if isinstance(bash, BashTool):
            bash.settings = ShellSettings(
                shell_path=settings.shellPath, command_prefix=settings.shellCommandPrefix
            )
        if self.permissions is not None:
            self.permissions.settings = settings.permissions

    def set_roots(self, roots: list[str]) -> None:
        """The folders writes inside need no permission for."""
        if self.permissions is not None:
            self.permissions.roots = roots

    def close(self) -> None:
        """Release what the tools keep (bash's full-output files)."""
        close_tools(self.tools)


def user_message(text: str, images: Sequence[JsonObject] = ()) -> JsonObject:
    """pi's prompt message: the text block first, then images."""
    content: list[JsonObject] = [{"type": "text", "text": text}, *images]
    return {"role": "user", "content": content, "timestamp": now_ms()}

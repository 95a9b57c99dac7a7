"""pi's agent events (spec §10–11), as pydantic models for the schema and plain dicts at run time.

The loop emits dicts (cheap, and the same objects pi emits: ``message`` fields share the message
being built); the models document every field and generate ``schemas/``. Event names and field
names are pi's, so a client written for pi's RPC mode understands them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pi_lsp.literals import CompactionReason
from pi_lsp.session.jsonl import JsonObject


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow")


class AgentStart(_Event):
    """A run begins (one prompt, or a continuation after a retry or compaction)."""

    type: Literal["agent_start"]


class AgentEnd(_Event):
    """The run ended; ``messages`` are every message it added."""

    type: Literal["agent_end"]
    messages: list[dict[str, Any]]


class TurnStart(_Event):
    """One model call (plus the tool calls it requested) begins."""

    type: Literal["turn_start"]


class TurnEnd(_Event):
    """The assistant message of the turn and the results of its tool calls."""

    type: Literal["turn_end"]
    message: dict[str, Any]
    toolResults: list[dict[str, Any]]


class MessageStart(_Event):
    """A message begins (user, custom, assistant or tool result)."""

    type: Literal["message_start"]
    message: dict[str, Any]


class MessageUpdate(_Event):
    """A streamed change to the assistant message.

    ``assistantMessageEvent`` is pi's sub-event (``text_delta``, ``thinking_delta``,
    ``toolcall_delta``, … with ``contentIndex``).
    """

    type: Literal["message_update"]
    message: dict[str, Any]
    assistantMessageEvent: dict[str, Any]


class MessageEnd(_Event):
    """A message is complete; it has been written to the session file when this is emitted."""

    type: Literal["message_end"]
    message: dict[str, Any]


class ToolExecutionStart(_Event):
    """A tool call is about to run (or was rejected, then ``tool_execution_end`` follows)."""

    type: Literal["tool_execution_start"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]


class ToolExecutionUpdate(_Event):
    """Partial output of a running tool (replaces the previous one, not appended)."""

    type: Literal["tool_execution_update"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]
    partialResult: dict[str, Any]


class ToolExecutionEnd(_Event):
    """A tool call finished; ``result`` is ``{content, details}``."""

    type: Literal["tool_execution_end"]
    toolCallId: str
    toolName: str
    result: dict[str, Any]
    isError: bool


class AutoCompactionStart(_Event):
    """Compaction started by itself: the context passed the threshold or overflowed."""

    type: Literal["auto_compaction_start"]
    reason: CompactionReason


class AutoCompactionEnd(_Event):
    """Automatic compaction ended; ``willRetry`` when the failed request is sent again."""

    type: Literal["auto_compaction_end"]
    result: dict[str, Any] | None = None
    aborted: bool
    willRetry: bool
    errorMessage: str | None = None


class AutoRetryStart(_Event):
    """A transient provider error: waiting ``delayMs`` before attempt ``attempt``."""

    type: Literal["auto_retry_start"]
    attempt: int
    maxAttempts: int
    delayMs: int
    errorMessage: str


class AutoRetryEnd(_Event):
    """Retrying ended, with a reply (``success``) or for good (``finalError``)."""

    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    finalError: str | None = None


AgentEvent = Annotated[
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | AutoCompactionStart
    | AutoCompactionEnd
    | AutoRetryStart
    | AutoRetryEnd,
    Field(discriminator="type"),
]
"""Every event an agent session emits."""


def event(kind: str, **fields: Any) -> JsonObject:
    """An event dict: ``{"type": kind, **fields}``."""
    return {"type": kind, **fields}

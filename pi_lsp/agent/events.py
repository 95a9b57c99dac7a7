"""pi's agent events (spec §10–11): TypedDicts over the plain dicts the loop emits.

One definition of each event, used at run time and for ``schemas/``. The loop emits dicts built
through these types (cheap, and the same objects pi emits: ``message`` fields share the message
being built). Event names and field names are pi's, so a client written for pi's RPC mode
understands them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from pi_lsp.literals import CompactionReason
from pi_lsp.session.messages import (
    OPEN,
    AssistantMessage,
    ContextMessage,
    ToolCall,
    ToolResultMessage,
    UserBlock,
)

# ----------------------------------------------------------------- a reply's stream (pi-ai)


@OPEN
class StreamStart(TypedDict):
    """The provider accepted the request; ``partial`` is the (still empty) reply."""

    type: Literal["start"]
    partial: AssistantMessage


@OPEN
class BlockStart(TypedDict):
    """A content block opens at ``contentIndex``."""

    type: Literal["text_start", "thinking_start", "toolcall_start"]
    contentIndex: int
    partial: NotRequired[AssistantMessage]
    """The reply so far (absent in ``pi/event``: the daemon leaves it out)."""


@OPEN
class BlockDelta(TypedDict):
    """Text, reasoning or tool-call argument text appended to the block at ``contentIndex``."""

    type: Literal["text_delta", "thinking_delta", "toolcall_delta"]
    contentIndex: int
    delta: str
    partial: NotRequired[AssistantMessage]
    """The reply so far (absent in ``pi/event``: the daemon leaves it out)."""


@OPEN
class BlockEnd(TypedDict):
    """A text or thinking block is complete; ``content`` is its whole text."""

    type: Literal["text_end", "thinking_end"]
    contentIndex: int
    content: str
    partial: NotRequired[AssistantMessage]
    """The reply so far (absent in ``pi/event``: the daemon leaves it out)."""


@OPEN
class ToolCallEnd(TypedDict):
    """A tool call is complete (its arguments parsed)."""

    type: Literal["toolcall_end"]
    contentIndex: int
    toolCall: ToolCall
    partial: NotRequired[AssistantMessage]
    """The reply so far (absent in ``pi/event``: the daemon leaves it out)."""


@OPEN
class StreamDone(TypedDict):
    """The reply ended normally."""

    type: Literal["done"]
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


@OPEN
class StreamError(TypedDict):
    """The reply failed or was aborted; ``error`` is the reply as it ended."""

    type: Literal["error"]
    reason: Literal["aborted", "error"]
    error: AssistantMessage


AssistantMessageEvent = Annotated[
    BlockStart | BlockDelta | BlockEnd | ToolCallEnd, Field(discriminator="type")
]
"""pi's sub-events of a streaming reply that ``message_update`` carries."""

StreamEvent = (
    StreamStart | BlockStart | BlockDelta | BlockEnd | ToolCallEnd | StreamDone | StreamError
)
"""Everything a model call streams (pi-ai's ``AssistantMessageEvent``): start, block events, then
``done`` or ``error``."""


# ----------------------------------------------------------------- agent events


@OPEN
class AgentStart(TypedDict):
    """A run begins (one prompt, or a continuation after a retry or compaction)."""

    type: Literal["agent_start"]


@OPEN
class AgentEnd(TypedDict):
    """The run ended; ``messages`` are every message it added."""

    type: Literal["agent_end"]
    messages: list[ContextMessage]


@OPEN
class TurnStart(TypedDict):
    """One model call (plus the tool calls it requested) begins."""

    type: Literal["turn_start"]


@OPEN
class TurnEnd(TypedDict):
    """The assistant message of the turn and the results of its tool calls."""

    type: Literal["turn_end"]
    message: AssistantMessage
    toolResults: list[ToolResultMessage]


@OPEN
class MessageStart(TypedDict):
    """A message begins (user, custom, assistant or tool result)."""

    type: Literal["message_start"]
    message: ContextMessage


@OPEN
class MessageUpdate(TypedDict):
    """A streamed change to the assistant message."""

    type: Literal["message_update"]
    message: AssistantMessage
    """The assistant message so far (shared with the one being built)."""
    assistantMessageEvent: AssistantMessageEvent


@OPEN
class MessageEnd(TypedDict):
    """A message is complete; it has been written to the session file when this is emitted."""

    type: Literal["message_end"]
    message: ContextMessage
    entryId: NotRequired[str]
    """Id of the session entry the message was stored as (set by the session that stored it)."""


@OPEN
class ToolOutput(TypedDict):
    """What a tool returns: content for the model, details for display."""

    content: list[UserBlock]
    details: NotRequired[Any]
    """Display-only data (a diff, truncation facts); never sent to the model."""


@OPEN
class ToolExecutionStart(TypedDict):
    """A tool call is about to run (or was rejected, then ``tool_execution_end`` follows)."""

    type: Literal["tool_execution_start"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]


@OPEN
class ToolExecutionUpdate(TypedDict):
    """Partial output of a running tool (replaces the previous one, not appended)."""

    type: Literal["tool_execution_update"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]
    partialResult: ToolOutput


@OPEN
class ToolExecutionEnd(TypedDict):
    """A tool call finished."""

    type: Literal["tool_execution_end"]
    toolCallId: str
    toolName: str
    result: ToolOutput
    isError: bool


@OPEN
class AutoCompactionStart(TypedDict):
    """Compaction started by itself: the context passed the threshold or overflowed."""

    type: Literal["auto_compaction_start"]
    reason: CompactionReason


@OPEN
class AutoCompactionEnd(TypedDict):
    """Automatic compaction ended; ``willRetry`` when the failed request is sent again."""

    type: Literal["auto_compaction_end"]
    result: NotRequired[dict[str, Any] | None]
    """pi's ``CompactionResult`` (``summary``, ``firstKeptEntryId``, ``tokensBefore``,
    ``details``) when a summary was written."""
    aborted: bool
    willRetry: bool
    errorMessage: NotRequired[str | None]


@OPEN
class AutoRetryStart(TypedDict):
    """A transient provider error: waiting ``delayMs`` before attempt ``attempt``."""

    type: Literal["auto_retry_start"]
    attempt: int
    maxAttempts: int
    delayMs: int
    errorMessage: str


@OPEN
class AutoRetryEnd(TypedDict):
    """Retrying ended, with a reply (``success``) or for good (``finalError``)."""

    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    finalError: NotRequired[str | None]


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

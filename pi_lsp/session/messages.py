"""pydantic models of pi's message and content types (spec §4–5), as stored in session files.

These models are the schema: they validate what pi_lsp writes, generate ``schemas/`` and document
every field. Loaded entries are *not* converted into them (the store keeps parsed JSON so unknown
fields survive, D1); a foreign field is always allowed (``extra="allow"``). The content blocks
are TypedDicts over that plain JSON, so tools build the same dicts the schema describes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict


class _Open(BaseModel):
    """Base for every stored object: unknown fields are kept, never rejected."""

    model_config = ConfigDict(extra="allow")


@with_config(ConfigDict(extra="allow"))
class TextContent(TypedDict):
    """A block of text."""

    type: Literal["text"]
    text: str
    textSignature: NotRequired[str | None]
    """Provider metadata (for example an OpenAI Responses item id); opaque."""


class ThinkingContent(_Open):
    """Model reasoning shown to the user; replayed to providers that accept it."""

    type: Literal["thinking"]
    thinking: str
    thinkingSignature: str | None = None
    """Opaque provider signature; can be kilobytes long."""
    redacted: bool | None = None
    """True when the reasoning itself lives only in the signature."""


@with_config(ConfigDict(extra="allow"))
class ImageContent(TypedDict):
    """An inline image."""

    type: Literal["image"]
    data: str
    """Base64 of the image bytes."""
    mimeType: str


class ToolCall(_Open):
    """One tool invocation requested by the assistant."""

    type: Literal["toolCall"]
    id: str
    """Provider tool-call id; the matching tool result carries it as ``toolCallId``."""
    name: str
    arguments: dict[str, Any]
    thoughtSignature: str | None = None


ContentBlock = TextContent | ImageContent
"""What user messages, tool results and custom messages hold: text and images."""
UserBlock = Annotated[ContentBlock, Field(discriminator="type")]
AssistantBlock = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]


class Cost(_Open):
    """Cost of one call in USD, split like the token counts."""

    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class Usage(_Open):
    """Token usage reported by the provider for one assistant message."""

    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int | None = None
    """Absent in older files; context size then falls back to the sum of the four counts."""
    cost: Cost


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class UserMessage(_Open):
    """What the user typed (text first, then images)."""

    role: Literal["user"]
    content: str | list[UserBlock]
    timestamp: int
    """Epoch milliseconds."""


class AssistantMessage(_Open):
    """One model reply, possibly partial (``aborted``) or failed (``error``)."""

    role: Literal["assistant"]
    content: list[AssistantBlock]
    api: str
    """Wire API used, e.g. ``anthropic-messages`` or ``openai-completions``."""
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    errorMessage: str | None = None
    timestamp: int


class ToolResultMessage(_Open):
    """The outcome of one tool call."""

    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[UserBlock]
    details: Any = None
    """Display-only data (a diff, truncation facts); never sent to the model."""
    isError: bool
    timestamp: int


class BashExecutionMessage(_Open):
    """A shell command the user ran directly (``!cmd``), with its output."""

    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: int | None = None
    """Absent when the process was killed."""
    cancelled: bool
    truncated: bool
    fullOutputPath: str | None = None
    timestamp: int
    excludeFromContext: bool | None = None
    """True for ``!!cmd``: shown to the user, never sent to the model."""


class CustomMessage(_Open):
    """An extension message that enters the model context as a user message."""

    role: Literal["custom"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: Any = None
    timestamp: int


class HookMessage(_Open):
    """Version-2 spelling of :class:`CustomMessage`; migrated to ``custom`` on load."""

    role: Literal["hookMessage"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: Any = None
    timestamp: int


class BranchSummaryMessage(_Open):
    """In-memory form of a ``branch_summary`` entry inside a built context."""

    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


class CompactionSummaryMessage(_Open):
    """In-memory form of a ``compaction`` entry inside a built context."""

    role: Literal["compactionSummary"]
    summary: str
    tokensBefore: int
    timestamp: int


StoredMessage = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | HookMessage,
    Field(discriminator="role"),
]
"""Roles a ``message`` entry may hold in a file (``hookMessage`` only in version-2 files)."""

ContextMessage = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage,
    Field(discriminator="role"),
]
"""Roles of the messages a built context returns (spec §3.1)."""

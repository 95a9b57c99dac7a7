"""pi's message and content types (spec §4–5), as stored in session files: TypedDicts over the JSON.

One definition serves the run time and the schema: the store keeps each line's parsed JSON, so
unknown fields survive (D1), and these TypedDicts describe those very dicts (tools and the agent
loop build them; no conversion, no copy). pydantic validates what pi_lsp writes against them
(:mod:`pi_lsp.session.validate`) and generates ``schemas/`` from them; a foreign field is always
allowed (``extra="allow"``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

_open = with_config(ConfigDict(extra="allow"))
"""Every stored object keeps unknown fields, never rejects them."""


@_open
class TextContent(TypedDict):
    """A block of text."""

    type: Literal["text"]
    text: str
    textSignature: NotRequired[str | None]
    """Provider metadata (for example an OpenAI Responses item id); opaque."""


@_open
class ThinkingContent(TypedDict):
    """Model reasoning shown to the user; replayed to providers that accept it."""

    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str | None]
    """Opaque provider signature; can be kilobytes long."""
    redacted: NotRequired[bool | None]
    """True when the reasoning itself lives only in the signature."""


@_open
class ImageContent(TypedDict):
    """An inline image."""

    type: Literal["image"]
    data: str
    """Base64 of the image bytes."""
    mimeType: str


@_open
class ToolCall(TypedDict):
    """One tool invocation requested by the assistant."""

    type: Literal["toolCall"]
    id: str
    """Provider tool-call id; the matching tool result carries it as ``toolCallId``."""
    name: str
    arguments: dict[str, Any]
    thoughtSignature: NotRequired[str | None]


ContentBlock = TextContent | ImageContent
"""What user messages, tool results and custom messages hold: text and images."""
UserBlock = Annotated[ContentBlock, Field(discriminator="type")]
AssistantBlock = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]


@_open
class Cost(TypedDict):
    """Cost of one call in USD, split like the token counts."""

    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


@_open
class Usage(TypedDict):
    """Token usage reported by the provider for one assistant message."""

    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: NotRequired[int | None]
    """Absent in older files; context size then falls back to the sum of the four counts."""
    cost: Cost


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


@_open
class UserMessage(TypedDict):
    """What the user typed (text first, then images)."""

    role: Literal["user"]
    content: str | list[UserBlock]
    timestamp: int
    """Epoch milliseconds."""


@_open
class AssistantMessage(TypedDict):
    """One model reply, possibly partial (``aborted``) or failed (``error``)."""

    role: Literal["assistant"]
    content: list[AssistantBlock]
    api: str
    """Wire API used, e.g. ``anthropic-messages`` or ``openai-completions``."""
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    errorMessage: NotRequired[str | None]
    timestamp: int


@_open
class ToolResultMessage(TypedDict):
    """The outcome of one tool call."""

    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[UserBlock]
    details: NotRequired[Any]
    """Display-only data (a diff, truncation facts); never sent to the model."""
    isError: bool
    timestamp: int


@_open
class BashExecutionMessage(TypedDict):
    """A shell command the user ran directly (``!cmd``), with its output."""

    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: NotRequired[int | None]
    """Absent when the process was killed."""
    cancelled: bool
    truncated: bool
    fullOutputPath: NotRequired[str | None]
    timestamp: int
    excludeFromContext: NotRequired[bool | None]
    """True for ``!!cmd``: shown to the user, never sent to the model."""


@_open
class CustomMessage(TypedDict):
    """An extension message that enters the model context as a user message."""

    role: Literal["custom"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: NotRequired[Any]
    timestamp: int


@_open
class HookMessage(TypedDict):
    """Version-2 spelling of :class:`CustomMessage`; migrated to ``custom`` on load."""

    role: Literal["hookMessage"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: NotRequired[Any]
    timestamp: int


@_open
class BranchSummaryMessage(TypedDict):
    """In-memory form of a ``branch_summary`` entry inside a built context."""

    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


@_open
class CompactionSummaryMessage(TypedDict):
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

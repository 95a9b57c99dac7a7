"""pi's message and content types (spec §4–5): TypedDicts over the plain JSON of session files.

One definition of each shape, used at run time and for ``schemas/``: a loaded message *is* the
parsed JSON (the store keeps it so unknown fields survive, D1), and these types say which keys it
has. That is pi's own trade-off (TypeScript interfaces over ``JSON.parse``). pydantic reads them
for the JSON Schemas (class and field docstrings become descriptions; a foreign field is always
allowed) and for :mod:`pi_lsp.session.appends`, which checks what pi_lsp writes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

OPEN = with_config(ConfigDict(extra="allow", use_attribute_docstrings=True))
"""Config of every stored object: unknown fields are kept, never rejected; docstrings documented."""


@OPEN
class TextContent(TypedDict):
    """A block of text."""

    type: Literal["text"]
    text: str
    textSignature: NotRequired[str | None]
    """Provider metadata (for example an OpenAI Responses item id); opaque."""


@OPEN
class ThinkingContent(TypedDict):
    """Model reasoning shown to the user; replayed to providers that accept it."""

    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str | None]
    """Opaque provider signature; can be kilobytes long."""
    redacted: NotRequired[bool | None]
    """True when the reasoning itself lives only in the signature."""


@OPEN
class ImageContent(TypedDict):
    """An inline image."""

    type: Literal["image"]
    data: str
    """Base64 of the image bytes."""
    mimeType: str


@OPEN
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
"""What an assistant message holds: text, reasoning and tool calls."""


@OPEN
class Cost(TypedDict):
    """Cost of one call in USD, split like the token counts."""

    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


@OPEN
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
"""Why an assistant message ended."""


@OPEN
class UserMessage(TypedDict):
    """What the user typed (text first, then images)."""

    role: Literal["user"]
    content: str | list[UserBlock]
    timestamp: int
    """Epoch milliseconds."""


@OPEN
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


@OPEN
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


@OPEN
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


@OPEN
class CustomMessage(TypedDict):
    """An extension message that enters the model context as a user message."""

    role: Literal["custom"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: NotRequired[Any]
    timestamp: int


@OPEN
class SystemMessage(TypedDict):
    """pi 1.6.0's prompt state in the transcript.

    A full prompt, or a patch of named sections and tool changes replayed onto earlier ones.
    """

    role: Literal["system"]
    content: str | list[TextContent]
    sections: NotRequired[dict[str, str | None] | None]
    """Prompt sections by name (``preamble``, ``tools``, ...); ``null`` removes one."""
    toolsAdded: NotRequired[list[dict[str, Any]] | None]
    """Tool declarations (name, description, parameters) added from here on."""
    toolsRemoved: NotRequired[list[dict[str, Any]] | None]
    """Tools (by ``name``) removed from here on."""
    timestamp: int


@OPEN
class HookMessage(TypedDict):
    """Version-2 spelling of :class:`CustomMessage`; migrated to ``custom`` on load."""

    role: Literal["hookMessage"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    details: NotRequired[Any]
    timestamp: int


@OPEN
class BranchSummaryMessage(TypedDict):
    """In-memory form of a ``branch_summary`` entry inside a built context."""

    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


@OPEN
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
    | SystemMessage
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
    | SystemMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage,
    Field(discriminator="role"),
]
"""Roles of the messages a built context returns (spec §3.1; pi's ``AgentMessage``)."""

"""pi's message and content types (spec §4–5): TypedDicts over the plain JSON of session files.

One definition of each shape, used at run time and for ``schemas/``: a loaded message *is* the
parsed JSON (the store keeps it so unknown fields survive, D1), and these types say which keys it
has. That is pi's own trade-off (TypeScript interfaces over ``JSON.parse``). pydantic reads them
for the JSON Schemas (class and field docstrings become descriptions; a foreign field is always
allowed) and for :mod:`pi_lsp.session.appends`, which checks what pi_lsp writes.

Beside the types, as in pi's own ``messages.ts``: :func:`convert_to_llm`, pi's ``convertToLlm``
(spec §3.3), turns agent messages into the three roles providers understand. ``user``,
``assistant`` and ``toolResult`` pass through; bash executions, custom messages and
branch/compaction summaries become ``user`` messages with pi's exact wording.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from pi_lsp.session.jsonl import JsonObject

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


def content_text(content: object, separator: str = "\n") -> str:
    """pi-ai's ``contentText``: a string as is, else its text blocks joined by ``separator``.

    A block whose ``text`` is not a string (only a damaged file has one) is left out.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
)
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:"
IMAGES_DISABLED = "Image reading is disabled."


def bash_execution_text(message: Mapping[str, Any]) -> str:
    """Pi's ``bashExecutionToText``: the command, its fenced output and how it ended."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif message.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {message['exitCode']}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _user(content: object, timestamp: object) -> JsonObject:
    return {"role": "user", "content": content, "timestamp": timestamp}


def _text(text: str) -> list[JsonObject]:
    return [{"type": "text", "text": text}]


def convert_message(message: Mapping[str, Any]) -> JsonObject | None:
    """One agent message as a provider message, or None when it is not sent."""
    role = message.get("role")
    stamp = message.get("timestamp")
    if role in ("user", "assistant", "toolResult"):
        return message if isinstance(message, dict) else dict(message)
    if role == "bashExecution":
        if message.get("excludeFromContext"):
            return None
        return _user(_text(bash_execution_text(message)), stamp)
    if role == "custom":
        content = message.get("content")
        return _user(_text(content) if isinstance(content, str) else content, stamp)
    if role == "branchSummary":
        text = f"{BRANCH_PREFIX}\n\n<summary>\n{message.get('summary', '')}</summary>"
        return _user(_text(text), stamp)
    if role == "compactionSummary":
        text = f"{COMPACTION_PREFIX}\n\n<summary>\n{message.get('summary', '')}\n</summary>"
        return _user(_text(text), stamp)
    return None


def convert_to_llm(
    messages: Iterable[Mapping[str, Any]], *, block_images: bool = False
) -> list[JsonObject]:
    """Convert a context's messages; with ``block_images`` images become a text note."""
    out = []
    for message in messages:
        converted = convert_message(message)
        if converted is None:
            continue
        if block_images and converted.get("role") in ("user", "toolResult"):
            converted = _without_images(converted)
        out.append(converted)
    return out


def _without_images(message: JsonObject) -> JsonObject:
    content = message.get("content")
    if not isinstance(content, list) or not any(b.get("type") == "image" for b in content):
        return message
    blocks: list[JsonObject] = []
    for block in content:
        if block.get("type") == "image":
            block = {"type": "text", "text": IMAGES_DISABLED}
            if blocks and blocks[-1] == block:
                continue  # consecutive duplicates collapse, as pi does
        blocks.append(block)
    return {**message, "content": blocks}

"""The fake OpenAI server's script format and the wire payloads it renders from a scripted turn.

A script is data (pydantic models, loadable from JSON): an ordered list of turns, each consumed by
one ``POST /v1/chat/completions``, then rules that pick a reply from the request's content, then an
optional default reply. This module only describes replies and renders them as OpenAI JSON; the
HTTP side lives in :mod:`pi_lsp.devtools.fake_openai`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

JsonObject = dict[str, Any]

_DEFAULT_ERROR_MESSAGES = {
    400: "Bad request (scripted)",
    401: "Incorrect API key provided: te**. You can find your API key at the provider's dashboard.",
    429: "Rate limit reached for requests (scripted)",
    500: "The server had an error while processing your request (scripted)",
    503: "The engine is currently overloaded (scripted)",
}
_DEFAULT_ERROR_TYPES = {401: "invalid_request_error", 429: "requests", 400: "invalid_request_error"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptToolCall(_Strict):
    """One tool call the fake model makes."""

    name: str
    arguments: JsonObject | str = Field(default_factory=dict)
    """An object (JSON-encoded on the wire) or a raw string sent as is, e.g. invalid JSON."""
    id: str | None = None
    """Defaults to ``call_<request number, from 0>_<index>``."""

    def wire_arguments(self) -> str:
        """The arguments string as OpenAI streams it."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


class ScriptUsage(_Strict):
    """Token counts for a turn (``prompt_tokens`` includes ``cached_tokens``, as at OpenAI)."""

    prompt_tokens: int = 11
    completion_tokens: int = 7
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def wire(self) -> JsonObject:
        """OpenAI's ``usage`` object."""
        usage: JsonObject = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }
        if self.cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": self.cached_tokens}
        if self.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        return usage


class ScriptError(_Strict):
    """An HTTP error reply in OpenAI's error-body shape."""

    status: int
    message: str | None = None
    type: str | None = None
    code: str | None = None
    retry_after: float | None = None
    """Seconds, sent as the ``retry-after`` header."""

    @classmethod
    def context_overflow(cls, window: int = 128000, requested: int = 130000) -> ScriptError:
        """OpenAI's chat-completions context overflow (400 ``context_length_exceeded``)."""
        return cls(
            status=400,
            type="invalid_request_error",
            code="context_length_exceeded",
            message=(
                f"This model's maximum context length is {window} tokens. However, your messages "
                f"resulted in {requested} tokens. Please reduce the length of the messages."
            ),
        )

    def body(self) -> JsonObject:
        """The JSON error body."""
        return {
            "error": {
                "message": self.message
                or _DEFAULT_ERROR_MESSAGES.get(self.status, "scripted error"),
                "type": self.type or _DEFAULT_ERROR_TYPES.get(self.status, "server_error"),
                "param": None,
                "code": self.code,
            }
        }


FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]


class Turn(_Strict):
    """One scripted reply: reasoning, then text, then tool calls; or an error."""

    text: str = ""
    reasoning: str = ""
    """Streamed as ``reasoning_content`` deltas before the text."""
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    finish_reason: FinishReason | None = None
    """Defaults to ``tool_calls`` when there are calls, else ``stop``."""
    usage: ScriptUsage = Field(default_factory=ScriptUsage)
    error: ScriptError | None = None
    chunk_size: int = Field(default=4, ge=1)
    """Characters of text (and of argument JSON, ×2) per chunk."""
    chunk_delay: float = Field(default=0.0, ge=0)
    """Seconds to sleep after each streamed chunk (slow streams)."""
    response_delay: float = Field(default=0.0, ge=0)
    """Seconds to wait before sending anything (status line included)."""
    hang_after: int | None = Field(default=None, ge=0)
    """Stop after this many chunks and hold the stream open until the client goes away."""

    def finish(self) -> FinishReason:
        """The finish reason sent on the last choice chunk."""
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def wire_calls(self, turn_number: int) -> list[JsonObject]:
        """Tool calls in OpenAI's message shape."""
        return [
            {
                "id": call.id or f"call_{turn_number}_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.wire_arguments()},
            }
            for index, call in enumerate(self.tool_calls)
        ]


class Rule(_Strict):
    """A reply chosen by the request's content when no scripted turn is left."""

    reply: Turn
    last_message_contains: str | None = None
    """Substring of the last message's text (any role)."""
    any_message_contains: str | None = None
    times: int | None = Field(default=None, ge=1)
    """How often the rule may fire; unlimited by default."""

    def matches(self, body: JsonObject) -> bool:
        """Whether this rule answers the request ``body``."""
        messages = body.get("messages") or []
        texts = [message_text(m) for m in messages]
        if self.last_message_contains is not None and (
            not texts or self.last_message_contains not in texts[-1]
        ):
            return False
        return self.any_message_contains is None or any(
            self.any_message_contains in text for text in texts
        )


class Script(_Strict):
    """A whole script: turns in order, then rules, then the default reply."""

    turns: list[Turn] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    default: Turn | None = None
    models: list[str] = Field(default_factory=lambda: ["fake-model"])
    """Ids listed by ``GET /v1/models``."""


def message_text(message: JsonObject) -> str:
    """The text of a chat message, whatever the content shape."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def completion(body: JsonObject, turn: Turn, turn_number: int) -> JsonObject:
    """A non-streaming ``chat.completion`` for ``turn``."""
    calls = turn.wire_calls(turn_number)
    message: JsonObject = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{turn_number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": turn.finish()}],
        "usage": turn.usage.wire(),
    }


def chunks(body: JsonObject, turn: Turn, turn_number: int) -> Iterator[JsonObject]:
    """Streaming ``chat.completion.chunk`` payloads, fragmented like OpenAI's."""
    base = {
        "id": f"chatcmpl-{turn_number}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
    }

    def chunk(delta: JsonObject, finish: str | None = None) -> JsonObject:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    size = turn.chunk_size
    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(turn.reasoning), size):
        yield chunk({"reasoning_content": turn.reasoning[start : start + size]})
    for start in range(0, len(turn.text), size):
        yield chunk({"content": turn.text[start : start + size]})
    for index, call in enumerate(turn.wire_calls(turn_number)):
        head = {"name": call["function"]["name"], "arguments": ""}
        yield chunk(
            {
                "tool_calls": [
                    {"index": index, "id": call["id"], "type": "function", "function": head}
                ]
            }
        )
        arguments = call["function"]["arguments"]
        for start in range(0, len(arguments), size * 2):
            piece = {"arguments": arguments[start : start + size * 2]}
            yield chunk({"tool_calls": [{"index": index, "function": piece}]})
    yield chunk({}, turn.finish())
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": turn.usage.wire()}

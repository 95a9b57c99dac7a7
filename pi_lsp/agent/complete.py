"""One-shot text completion for the compaction and branch summarizers, through the same access.

:func:`complete_text` sends a system prompt and one user message, streams the reply (so an abort
closes the connection) and returns its text (text blocks joined by newlines, as pi's summarizer
joins them), usage and stop reason. A failed or aborted call raises :class:`CompletionError`; the
caller words it (pi: ``Summarization failed: …``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from pi_lsp.agent.errors import ProviderFailure
from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import Endpoint, ModelRequest, stream_assistant
from pi_lsp.agent.thinking import ThinkingLevel
from pi_lsp.session.jsonl import JsonObject


@dataclass(frozen=True, kw_only=True, slots=True)
class TextCompletion:
    """A successful one-shot reply."""

    text: str
    usage: JsonObject
    """pi's usage object (tokens and cost)."""
    stop_reason: str
    """``stop`` or ``length`` (a truncated summary is still returned)."""
    message: JsonObject
    """The whole assistant message, for callers that store or inspect it."""


class CompletionError(Exception):
    """The model call failed (``stop_reason == "error"``) or was aborted (``"aborted"``)."""

    def __init__(self, message: JsonObject, failure: ProviderFailure | None) -> None:
        super().__init__(str(message.get("errorMessage") or "Unknown error"))
        self.message = message
        self.failure = failure
        self.stop_reason: str = str(message.get("stopReason"))


@dataclass(frozen=True, kw_only=True, slots=True)
class _Prompt:
    text: str
    timestamp: int = field(default_factory=lambda: int(time.time() * 1000))

    def message(self) -> JsonObject:
        return {
            "role": "user",
            "content": [{"type": "text", "text": self.text}],
            "timestamp": self.timestamp,
        }


async def complete_text(
    model: ModelInfo,
    *,
    system_prompt: str,
    prompt: str,
    max_tokens: int,
    reasoning: ThinkingLevel = "off",
    endpoint: Endpoint | None = None,
    abort: asyncio.Event | None = None,
) -> TextCompletion:
    """Ask ``model`` once; ``reasoning`` is clamped to the model (``off`` without reasoning)."""
    request = ModelRequest(
        model=model,
        messages=[_Prompt(text=prompt).message()],
        system_prompt=system_prompt,
        thinking_level=reasoning,
        max_tokens=max_tokens,
        endpoint=endpoint or Endpoint(),
        abort=abort,
    )
    stream = stream_assistant(request)
    message = await stream.result()
    if message["stopReason"] in ("error", "aborted"):
        raise CompletionError(message, stream.failure)
    text = "\n".join(b["text"] for b in message["content"] if b.get("type") == "text")
    return TextCompletion(
        text=text, usage=message["usage"], stop_reason=message["stopReason"], message=message
    )

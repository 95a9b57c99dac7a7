"""One-shot text completion for the compaction and branch summarizers, through the same access.

:func:`complete_text` sends a system prompt and one user message, streams the reply (so an abort
closes the connection) and returns its text (text blocks joined by newlines, as pi's summarizer
joins them), usage and stop reason. A failed or aborted call raises :class:`CompletionError`; the
caller words it (pi: ``Summarization failed: …``). :class:`LitellmTextModel` wraps it in the shape
the compaction summarizer asks for (``complete(system=, prompt=, max_tokens=, reasoning=)``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from pi_lsp.agent.errors import ProviderFailure
from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import Endpoint, ModelRequest, stream_assistant
from pi_lsp.agent.thinking import THINKING_LEVELS, ThinkingLevel
from pi_lsp.session.messages import AssistantMessage, TextContent, Usage, UserMessage


@dataclass(frozen=True, kw_only=True, slots=True)
class TextCompletion:
    """A successful one-shot reply."""

    text: str
    usage: Usage
    """pi's usage object (tokens and cost)."""
    stop_reason: str
    """``stop`` or ``length`` (a truncated summary is still returned)."""
    message: AssistantMessage
    """The whole assistant message, for callers that store or inspect it."""


class CompletionError(Exception):
    """The model call failed (``stop_reason == "error"``) or was aborted (``"aborted"``)."""

    def __init__(self, message: AssistantMessage, failure: ProviderFailure | None) -> None:
        super().__init__(str(message.get("errorMessage") or "Unknown error"))
        self.message = message
        self.failure = failure
        self.stop_reason: str = str(message.get("stopReason"))


@dataclass(frozen=True, kw_only=True, slots=True)
class _Prompt:
    text: str
    timestamp: int = field(default_factory=lambda: int(time.time() * 1000))

    def message(self) -> UserMessage:
        return UserMessage(
            role="user",
            content=[TextContent(type="text", text=self.text)],
            timestamp=self.timestamp,
        )


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
    text = "\n".join(b["text"] for b in message["content"] if b["type"] == "text")
    return TextCompletion(
        text=text, usage=message["usage"], stop_reason=message["stopReason"], message=message
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class LitellmTextModel:
    """A resolved model as the summarizers use it: one-shot text, raising on failure."""

    model: ModelInfo
    endpoint: Endpoint = field(default_factory=Endpoint)
    abort: asyncio.Event | None = None

    @property
    def supports_reasoning(self) -> bool:
        """Whether the model takes reasoning settings."""
        return self.model.reasoning

    @property
    def context_window(self) -> int | None:
        """The model's context window (litellm's data, a setting, or the default)."""
        return self.model.context_window

    async def complete(
        self, *, system: str, prompt: str, max_tokens: int, reasoning: str | None
    ) -> str:
        """The reply's text; raises :class:`CompletionError` when the call fails or is aborted."""
        level: ThinkingLevel = next((lvl for lvl in THINKING_LEVELS if lvl == reasoning), "off")
        result = await complete_text(
            self.model,
            system_prompt=system,
            prompt=prompt,
            max_tokens=max_tokens,
            reasoning=level,
            endpoint=self.endpoint,
            abort=self.abort,
        )
        return result.text

"""What to do after a run: retry a transient error, recover from an overflow, or compact.

pi's rules (spec §11 and 6.7), as pure decisions over the last assistant message: the caller
(:class:`pi_lsp.agent.agent_session.AgentSession`) performs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.agent.errors import is_context_overflow, is_retryable_message
from pi_lsp.agent.models import ModelInfo
from pi_lsp.compaction import calculate_context_tokens
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.settings import RetrySettings

Action = Literal["none", "retry", "give_up", "overflow", "threshold"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The next step after a run ended with ``message``."""

    action: Action
    delay_ms: int = 0
    attempt: int = 0


def retry_delay_ms(settings: RetrySettings, attempt: int) -> int:
    """``baseDelayMs × 2^(attempt − 1)``: 2 s, 4 s, 8 s by default, at most ``maxAgentDelayMs``."""
    return int(min(settings.baseDelayMs * 2 ** (attempt - 1), settings.maxAgentDelayMs))


def after_error(
    message: JsonObject, model: ModelInfo, settings: RetrySettings, attempt: int
) -> Decision:
    """For a reply that ended in an error: overflow recovery, a retry, or giving up."""
    if _same_model(message, model) and is_context_overflow(message, model.context_window):
        return Decision("overflow")
    if not settings.enabled or not is_retryable_message(message, model.context_window):
        return Decision("none")
    attempt += 1
    if attempt > settings.maxRetries:
        return Decision("give_up", attempt=settings.maxRetries)
    requested = message.get("retryAfterMs")
    if isinstance(requested, int) and requested > settings.provider.maxRetryDelayMs:
        return Decision("give_up", attempt=attempt)
    return Decision("retry", delay_ms=retry_delay_ms(settings, attempt), attempt=attempt)


def _same_model(message: JsonObject, model: ModelInfo) -> bool:
    return (
        message.get("provider") == model.ref.provider and message.get("model") == model.ref.model_id
    )


def usage_tokens(message: JsonObject) -> int | None:
    """Context size a reply's ``usage`` reports (``totalTokens`` or the sum of the parts)."""
    usage: Any = message.get("usage")
    if not isinstance(usage, dict):
        return None
    return calculate_context_tokens(usage)

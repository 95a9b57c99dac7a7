"""Coding-agent turns: model access through litellm, and (from the lead) the turn loop.

Plain Python: never imports pygls or lsprotocol, and never imports litellm at module level
(``pi_lsp.agent.llm`` imports it lazily, off the event loop).
"""

from pi_lsp.agent.complete import CompletionError, LitellmTextModel, TextCompletion, complete_text
from pi_lsp.agent.errors import (
    ProviderFailure,
    auth_hint,
    describe_provider_error,
    is_auth_error,
    is_context_overflow,
    is_retryable,
    is_retryable_message,
    parse_retry_delay_ms,
)
from pi_lsp.agent.models import ModelInfo, ModelRef, aresolve_model, resolve_model
from pi_lsp.agent.stream import AssistantStream, Endpoint, ModelRequest, stream_assistant
from pi_lsp.agent.thinking import (
    THINKING_LEVELS,
    ThinkingLevel,
    available_thinking_levels,
    clamp_thinking_level,
)

__all__ = [
    "THINKING_LEVELS",
    "AssistantStream",
    "CompletionError",
    "Endpoint",
    "LitellmTextModel",
    "ModelInfo",
    "ModelRef",
    "ModelRequest",
    "ProviderFailure",
    "TextCompletion",
    "ThinkingLevel",
    "aresolve_model",
    "auth_hint",
    "available_thinking_levels",
    "clamp_thinking_level",
    "complete_text",
    "describe_provider_error",
    "is_auth_error",
    "is_context_overflow",
    "is_retryable",
    "is_retryable_message",
    "parse_retry_delay_ms",
    "resolve_model",
    "stream_assistant",
]

"""The provider through litellm: the lazy import, failure classification, token usage.

The one place that imports litellm, lazily, configured for pi_lsp.

Importing litellm costs ~3 s and 150 MB, so nothing imports it at module level: code about to call
a model awaits :func:`load_litellm` (the import runs in a worker thread, off the event loop) or,
outside an event loop, calls :func:`litellm_module`. Before the first import the offline switches
are set with ``os.environ.setdefault`` (an explicit environment wins) so litellm never fetches its
cost map or other files from the network; after it, ``suppress_debug_info`` keeps litellm from
printing to stdout, which would corrupt an LSP stream, and litellm's aiohttp transport is turned
off: closing a half-read aiohttp-backed stream hands the connection back to its pool instead of
closing it, so an aborted reply would keep streaming (and costing) on the provider's side; httpx's
own transport closes the socket.

Classifying provider failures the way pi does: retryable, context overflow, authentication.

The loop decides on an assistant message's ``errorMessage`` text, as pi does, so these helpers work
on stored messages too. :func:`describe_provider_error` turns a litellm/openai exception into that
text (``<status> <provider message>``, like the provider SDKs pi uses) plus the facts the loop may
want (HTTP status, server-requested retry delay). Pure; never imports litellm (exceptions are read
by duck typing).

Token usage and cost in pi's shape, from the usage object litellm reports.

litellm's ``prompt_tokens`` counts every input token, cached or not (for Anthropic it adds the cache
reads and writes back in), so pi's ``input`` is what remains after taking out ``cacheRead`` and
``cacheWrite``. ``output`` is ``completion_tokens``, which already includes reasoning tokens (pi's
chat-completions provider adds them a second time; pi_lsp does not). Cost is computed per component
from litellm's per-token prices, as pi's ``calculateCost`` does; unknown models cost 0. Pure.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from pi_lsp.session.jsonl import JsonObject

if TYPE_CHECKING:  # models imports this module (litellm's loader); prices are only a type here
    from pi_lsp.agent.models import TokenPrices

_OFFLINE_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
_lock = threading.Lock()
_module: ModuleType | None = None


def litellm_module() -> ModuleType:
    """The configured litellm module, imported on first use (blocks for seconds that time)."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            for name, value in _OFFLINE_ENV.items():
                os.environ.setdefault(name, value)
            module = importlib.import_module("litellm")
            module.suppress_debug_info = True  # type: ignore[attr-defined]
            module.disable_aiohttp_transport = True  # type: ignore[attr-defined]
            _module = module
    return _module


async def load_litellm() -> ModuleType:
    """The configured litellm module; the first call imports it in a thread (loop stays live)."""
    if _module is not None:
        return _module
    return await asyncio.to_thread(litellm_module)


def is_loaded() -> bool:
    """Whether litellm has been imported by this module (for start-up checks and tests)."""
    return _module is not None


RETRYABLE_PATTERN = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable"
    r"|server error|internal error|connection.?error|connection.?refused|other side closed"
    r"|fetch failed|upstream.?connect|reset before headers|terminated|retry delay",
    re.IGNORECASE,
)
"""pi v0.58.3's transient-error pattern (``agent-session.ts`` ``_isRetryableError``)."""

OVERFLOW_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Amazon Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Google
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter, OpenAI chat completions
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
)
"""pi's ``OVERFLOW_PATTERNS`` (``packages/ai/src/utils/overflow.ts``)."""
_NO_BODY_OVERFLOW = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
_AUTH_PATTERN = re.compile(
    r"^(401|403)\b|authentication failed|invalid api key|incorrect api key|invalid x-api-key"
    r"|unauthorized|api key not valid|no api key|missing credentials|missing \w+ api key",
    re.IGNORECASE,
)
_RETRY_IN_TEXT = re.compile(r"(?:retry|try again) (?:in|after) ([\d.]+)\s*(ms|s)\b", re.IGNORECASE)
_RETRY_DELAY_FIELD = re.compile(r'"retryDelay":\s*"([\d.]+)s"')
_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+: |\w+(?:Error|Exception): )*(?:\w+Exception - )?")

# Environment variables litellm reads for each provider's key (pi provider names).
PROVIDER_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GEMINI_API_KEY",
    "google-vertex": "GOOGLE_APPLICATION_CREDENTIALS",
    "amazon-bedrock": "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)",
    "xai": "XAI_API_KEY",
    "groq": "GROQ_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "zai": "ZAI_API_KEY",
    "minimax": "MINIMAX_API_KEY",
    "huggingface": "HUGGINGFACE_API_KEY",
    "vercel-ai-gateway": "VERCEL_AI_GATEWAY_API_KEY",
}

FailureKind = Literal["auth", "overflow", "rate_limit", "server", "connection", "request", "other"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderFailure:
    """A failed model call, described for the loop."""

    message: str
    """The assistant message's ``errorMessage``."""
    kind: FailureKind
    status: int | None = None
    retry_after_ms: int | None = None
    """Delay the server asked for (``retry-after`` and similar), if any."""


def is_retryable(error_message: str) -> bool:
    """pi's transient-error test on an ``errorMessage`` (check overflow first, as pi does)."""
    return bool(RETRYABLE_PATTERN.search(error_message))


def is_context_overflow(message: Mapping[str, Any], context_window: int | None = None) -> bool:
    """pi's ``isContextOverflow`` on a stored assistant message.

    True for an error whose text matches a provider's overflow wording (or a 400/413 without a
    body), and for a successful reply whose ``input + cacheRead`` exceeds ``context_window``.
    """
    error = message.get("errorMessage")
    if (
        message.get("stopReason") == "error"
        and error
        and (any(p.search(error) for p in OVERFLOW_PATTERNS) or _NO_BODY_OVERFLOW.search(error))
    ):
        return True
    if context_window and message.get("stopReason") == "stop":
        usage = message.get("usage") or {}
        return int(usage.get("input", 0)) + int(usage.get("cacheRead", 0)) > context_window
    return False


def is_retryable_message(message: Mapping[str, Any], context_window: int | None = None) -> bool:
    """pi's full rule: an ``error`` reply, not an overflow, whose text looks transient.

    Authentication failures are never retried, even when their text holds a status pi's pattern
    matches (litellm reports a missing OpenAI key as a 500).
    """
    error = message.get("errorMessage")
    return (
        message.get("stopReason") == "error"
        and bool(error)
        and not is_context_overflow(message, context_window)
        and not is_auth_error(str(error))
        and is_retryable(str(error))
    )


def is_auth_error(error_message: str) -> bool:
    """Whether ``error_message`` reports missing or rejected credentials (never retried)."""
    return bool(_AUTH_PATTERN.search(error_message))


def auth_hint(provider: str) -> str:
    """What to set when ``provider`` rejects the credentials."""
    variable = PROVIDER_KEY_ENV.get(provider, f"{provider.upper().replace('-', '_')}_API_KEY")
    return f"Authentication failed for {provider}: set {variable}"


def parse_retry_delay_ms(headers: Mapping[str, str] | None, text: str = "") -> int | None:
    """Server-requested delay: ``retry-after-ms``, ``retry-after`` (seconds or date), or text."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    if (value := lowered.get("retry-after-ms")) and _is_number(value):
        return round(float(value))
    if value := lowered.get("retry-after"):
        if _is_number(value):
            return round(float(value) * 1000)
        try:
            return max(0, round((parsedate_to_datetime(value).timestamp() - time.time()) * 1000))
        except (TypeError, ValueError):
            pass
    if match := _RETRY_IN_TEXT.search(text):
        amount = float(match.group(1))
        return round(amount if match.group(2).lower() == "ms" else amount * 1000)
    if match := _RETRY_DELAY_FIELD.search(text):
        return round(float(match.group(1)) * 1000)
    return None


def describe_provider_error(exc: BaseException, provider: str) -> ProviderFailure:
    """Turn an exception raised by a litellm call into pi's ``errorMessage`` and its facts."""
    status = _status(exc)
    detail = _LITELLM_PREFIX.sub("", str(getattr(exc, "message", None) or exc)).strip()
    detail = detail or type(exc).__name__
    text = f"{status} {detail}" if status and not detail.startswith(str(status)) else detail
    kind = _kind(exc, status, text)
    if kind == "auth":
        shown = text if status in (401, 403) else detail  # litellm says 500 for a missing key
        text = f"{auth_hint(provider)} ({shown})"
    headers = getattr(getattr(exc, "response", None), "headers", None)
    return ProviderFailure(
        message=text,
        kind=kind,
        status=status,
        retry_after_ms=parse_retry_delay_ms(
            headers if isinstance(headers, Mapping) else None, text
        ),
    )


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _kind(exc: BaseException, status: int | None, text: str) -> FailureKind:
    name = type(exc).__name__
    if name == "ContextWindowExceededError" or any(p.search(text) for p in OVERFLOW_PATTERNS):
        return "overflow"
    auth_names = ("AuthenticationError", "PermissionDeniedError")
    if status in (401, 403) or name in auth_names or _AUTH_PATTERN.search(text):
        return "auth"
    if status == 429 or name == "RateLimitError":
        return "rate_limit"
    if name in ("APIConnectionError", "Timeout", "APITimeoutError"):
        return "connection"
    if status is not None and status >= 500:
        return "server"
    return "request" if status is not None and 400 <= status < 500 else "other"


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def empty_usage() -> JsonObject:
    """Usage of a reply that reported none (errors, aborts)."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def usage_from_provider(usage: Any, prices: TokenPrices) -> JsonObject:
    """pi's ``usage`` for a litellm ``Usage`` object (or an OpenAI-shaped dict)."""
    prompt = _count(usage, "prompt_tokens")
    details = _field(usage, "prompt_tokens_details")
    cache_read = _count(details, "cached_tokens") or _count(usage, "cache_read_input_tokens")
    cache_write = _count(details, "cache_creation_tokens") or _count(
        usage, "cache_creation_input_tokens"
    )
    fresh_input = max(0, prompt - cache_read - cache_write)
    output = _count(usage, "completion_tokens")
    cost = {
        "input": fresh_input * prices.input,
        "output": output * prices.output,
        "cacheRead": cache_read * prices.cache_read,
        "cacheWrite": cache_write * prices.cache_write,
    }
    cost["total"] = sum(cost.values())
    return {
        "input": fresh_input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": fresh_input + output + cache_read + cache_write,
        "cost": cost,
    }


def _field(source: Any, name: str) -> Any:
    if source is None:
        return None
    if isinstance(source, dict):
        return source.get(name)
    return getattr(source, name, None)


def _count(source: Any, name: str) -> int:
    value = _field(source, name)
    return int(value) if isinstance(value, int | float) else 0

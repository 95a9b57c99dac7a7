"""Token usage and cost in pi's shape, from the usage object litellm reports.

litellm's ``prompt_tokens`` counts every input token, cached or not (for Anthropic it adds the cache
reads and writes back in), so pi's ``input`` is what remains after taking out ``cacheRead`` and
``cacheWrite``. ``output`` is ``completion_tokens``, which already includes reasoning tokens (pi's
chat-completions provider adds them a second time; pi_lsp does not). Cost is computed per component
from litellm's per-token prices, as pi's ``calculateCost`` does; unknown models cost 0. Pure.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.agent.models import TokenPrices
from pi_lsp.session.messages import Cost, Usage


def empty_usage() -> Usage:
    """Usage of a reply that reported none (errors, aborts)."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def usage_from_provider(usage: Any, prices: TokenPrices) -> Usage:
    """pi's ``usage`` for a litellm ``Usage`` object (or an OpenAI-shaped dict)."""
    prompt = _count(usage, "prompt_tokens")
    details = _field(usage, "prompt_tokens_details")
    cache_read = _count(details, "cached_tokens") or _count(usage, "cache_read_input_tokens")
    cache_write = _count(details, "cache_creation_tokens") or _count(
        usage, "cache_creation_input_tokens"
    )
    fresh_input = max(0, prompt - cache_read - cache_write)
    output = _count(usage, "completion_tokens")
    parts = (
        fresh_input * prices.input,
        output * prices.output,
        cache_read * prices.cache_read,
        cache_write * prices.cache_write,
    )
    cost = Cost(
        input=parts[0], output=parts[1], cacheRead=parts[2], cacheWrite=parts[3], total=sum(parts)
    )
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

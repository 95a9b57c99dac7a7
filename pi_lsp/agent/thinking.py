"""Thinking levels: which a model offers, pi's clamping, and the litellm parameters for each.

pi's levels (defined in :mod:`pi_lsp.literals`) are ``off, minimal, low, medium, high,
xhigh``. A model without reasoning offers only ``off``; ``xhigh`` only where supported. A level
the model lacks is clamped upwards first, then downwards (pi's ``_clampThinkingLevel``).
Anthropic gets explicit thinking budgets with pi's defaults (litellm's own ``reasoning_effort``
budgets are smaller); every other provider gets litellm's ``reasoning_effort``. Pure: callers
pass a resolved :class:`~pi_lsp.agent.models.ModelInfo`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_lsp.agent.models import ModelInfo
from pi_lsp.literals import THINKING_LEVELS as THINKING_LEVELS
from pi_lsp.literals import ThinkingLevel as ThinkingLevel

DEFAULT_THINKING_BUDGETS: Mapping[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
}
"""Anthropic thinking budgets in tokens (pi's defaults; ``xhigh`` uses ``high``'s)."""
MAX_TOKENS_CAP = 32_000
"""pi's default output cap: ``min(model output limit, 32000)`` unless a request says otherwise."""
_MIN_OUTPUT_TOKENS = 1024
_ANTHROPIC_EFFORT = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "max",
}


def available_thinking_levels(model: ModelInfo) -> tuple[ThinkingLevel, ...]:
    """The levels ``model`` offers, weakest first."""
    if not model.reasoning:
        return ("off",)
    return THINKING_LEVELS if model.supports_xhigh else THINKING_LEVELS[:-1]


def clamp_thinking_level(model: ModelInfo, level: ThinkingLevel) -> ThinkingLevel:
    """``level`` if offered, else the nearest stronger level, else the nearest weaker one."""
    available = available_thinking_levels(model)
    if level in available:
        return level
    index = THINKING_LEVELS.index(level)
    for candidate in (*THINKING_LEVELS[index + 1 :], *reversed(THINKING_LEVELS[:index])):
        if candidate in available:
            return candidate
    return available[0]


def default_max_tokens(model: ModelInfo) -> int:
    """The output cap pi sends when a request sets none."""
    return min(model.max_output_tokens, MAX_TOKENS_CAP)


def completion_params(
    model: ModelInfo,
    level: ThinkingLevel,
    *,
    max_tokens: int | None = None,
    budgets: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """litellm keyword arguments for ``level`` (clamped to the model) and the output cap."""
    base = max_tokens or default_max_tokens(model)
    effective = clamp_thinking_level(model, level)
    if effective == "off":
        return {"max_tokens": base}
    if model.ref.api != "anthropic-messages":
        return {"max_tokens": base, "reasoning_effort": effective}
    if _adaptive_anthropic(model):
        return {"max_tokens": base, "reasoning_effort": _ANTHROPIC_EFFORT[effective]}
    return _anthropic_budget(model, effective, base, budgets)


def _anthropic_budget(
    model: ModelInfo, level: ThinkingLevel, base: int, budgets: Mapping[str, int] | None
) -> dict[str, Any]:
    """pi's ``adjustMaxTokensForThinking``: room for the budget on top of the requested output."""
    merged = {**DEFAULT_THINKING_BUDGETS, **(budgets or {})}
    budget = merged["high" if level == "xhigh" else level]
    max_tokens = min(base + budget, model.max_output_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - _MIN_OUTPUT_TOKENS)
    return {"max_tokens": max_tokens, "thinking": {"type": "enabled", "budget_tokens": budget}}


def _adaptive_anthropic(model: ModelInfo) -> bool:
    """Opus 4.6 takes an effort level instead of a budget (pi's ``supportsAdaptiveThinking``)."""
    model_id = model.ref.model_id.lower()
    return "opus-4-6" in model_id or "opus-4.6" in model_id

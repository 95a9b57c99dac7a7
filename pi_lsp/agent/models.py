"""Models: identity and capabilities, litellm's bundled model table, thinking levels.

A :class:`ModelRef` carries pi's provider name (``google``, ``amazon-bedrock``…) so sessions record
what pi records, and knows litellm's spelling of the same provider for calls. :func:`resolve_model`
describes a model (context window, output limit, reasoning, vision, prices) from litellm's data; a
model litellm does not know gets explicit settings or documented defaults. Importing litellm costs
seconds and opening a session should not wait for it, so until it is imported (for the first model
call, :mod:`pi_lsp.agent.llm`) the table it ships is read straight from its JSON file; afterwards
its own ``get_model_info`` answers, so models registered at run time are seen too.

Thinking levels: pi 1.6.0's levels (defined in :mod:`pi_lsp.literals`) are ``off, minimal, low,
medium, high, xhigh, max``. A model without reasoning offers only ``off``; ``xhigh`` only where
supported; ``max`` only where a model maps it, which no model pi_lsp knows does, so ``max`` clamps
down to the strongest level offered. A level the model lacks is clamped upwards first, then
downwards (pi's ``clampThinkingLevel``). Anthropic gets explicit thinking budgets with pi's
defaults (litellm's own ``reasoning_effort`` budgets are smaller); every other provider gets
litellm's ``reasoning_effort``. Pure: nothing here calls a model.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pi_lsp.agent.llm import is_loaded, litellm_module
from pi_lsp.literals import THINKING_LEVELS as THINKING_LEVELS
from pi_lsp.literals import ThinkingLevel as ThinkingLevel

# pi provider name -> litellm's provider prefix, where they differ.
_LITELLM_PREFIX = {
    "google": "gemini",
    "google-vertex": "vertex_ai",
    "amazon-bedrock": "bedrock",
    "github-copilot": "github_copilot",
    "vercel-ai-gateway": "vercel_ai_gateway",
}
_PI_PROVIDER = {prefix: provider for provider, prefix in _LITELLM_PREFIX.items()}

OPENAI_COMPLETIONS = "openai-completions"
"""The ``api`` of every chat-completions call. pi itself talks to OpenAI through the Responses API
(``openai-responses``); pi_lsp calls chat completions through litellm and records what it used."""

# The wire API litellm speaks for each provider, named as pi names it (packages/ai/src/types.ts).
_PROVIDER_API = {
    "anthropic": "anthropic-messages",
    "google": "google-generative-ai",
    "google-vertex": "google-vertex",
    "amazon-bedrock": "bedrock-converse-stream",
}

DEFAULT_CONTEXT_WINDOW = 128_000
"""Context window assumed for a model litellm does not know and no setting describes (pi's default
for custom models)."""
DEFAULT_MAX_OUTPUT_TOKENS = 16_384
"""Output limit assumed for an unknown model (pi's default for custom models)."""

ContextWindowSource = Literal["setting", "litellm", "default"]


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A model as pi names it: provider and model id (the id may itself contain slashes)."""

    provider: str
    model_id: str

    @classmethod
    def parse(cls, text: str, *, default_provider: str | None = None) -> ModelRef:
        """Parse ``provider/model``; litellm's provider spellings (``gemini/…``) become pi's."""
        provider, slash, model_id = text.strip().partition("/")
        if not slash:
            if default_provider is None:
                raise ValueError(f"Model {text!r} needs a provider: write it as provider/model")
            provider, model_id = default_provider, text.strip()
        if not provider or not model_id:
            raise ValueError(f"Model {text!r} is not of the form provider/model")
        return cls(_PI_PROVIDER.get(provider, provider), model_id)

    @property
    def litellm_provider(self) -> str:
        """litellm's name for the provider."""
        return litellm_provider(self.provider)

    @property
    def litellm_model(self) -> str:
        """The ``model`` argument for litellm calls."""
        return f"{self.litellm_provider}/{self.model_id}"

    @property
    def api(self) -> str:
        """pi's ``api`` value for messages produced through this provider."""
        return _PROVIDER_API.get(self.provider, OPENAI_COMPLETIONS)

    def __str__(self) -> str:
        return f"{self.provider}/{self.model_id}"


def litellm_provider(provider: str) -> str:
    """litellm's name for a pi provider (``google`` -> ``gemini``)."""
    return _LITELLM_PREFIX.get(provider, provider)


@dataclass(frozen=True, kw_only=True, slots=True)
class TokenPrices:
    """USD per token, split like pi's usage cost."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelInfo:
    """What pi_lsp needs to know about a model to call it and budget its context."""

    ref: ModelRef
    context_window: int
    context_window_source: ContextWindowSource
    """``default``: nothing described the model, so callers may warn that the window is a guess."""
    max_output_tokens: int
    reasoning: bool
    """Whether the model accepts reasoning settings (thinking levels other than ``off``)."""
    supports_xhigh: bool
    supports_images: bool
    prices: TokenPrices
    known: bool
    """Whether litellm's model data describes the model."""


def resolve_model(
    ref: ModelRef,
    *,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    reasoning: bool | None = None,
    supports_images: bool | None = None,
) -> ModelInfo:
    """Describe ``ref`` from litellm's model data; explicit settings win over it.

    Does not import litellm: before it is imported, the table it ships is read directly.
    """
    data = _model_data(ref)
    window, source = _context_window(data, context_window)
    thinks = reasoning if reasoning is not None else _supports_reasoning(ref, data)
    return ModelInfo(
        ref=ref,
        context_window=window,
        context_window_source=source,
        max_output_tokens=max_output_tokens
        or _int(data, "max_output_tokens")
        or DEFAULT_MAX_OUTPUT_TOKENS,
        reasoning=thinks,
        supports_xhigh=thinks and _supports_xhigh(ref, data),
        supports_images=supports_images
        if supports_images is not None
        else bool(data.get("supports_vision", not data)),
        prices=_prices(data),
        known=bool(data),
    )


def _model_data(ref: ModelRef) -> dict[str, Any]:
    """litellm's model-info dict, or ``{}`` for a model it does not map.

    Before litellm is imported, its bundled table answers (no multi-second import just to
    describe a model); afterwards litellm itself does, so run-time registrations count.
    """
    if not is_loaded():
        return bundled_model_data(ref.litellm_provider, ref.model_id)
    litellm = litellm_module()
    for args in ((ref.litellm_model, None), (ref.model_id, ref.litellm_provider)):
        try:
            return dict(litellm.get_model_info(args[0], custom_llm_provider=args[1]))
        except Exception:  # litellm raises assorted types for unmapped models
            continue
    return {}


def _context_window(data: dict[str, Any], setting: int | None) -> tuple[int, ContextWindowSource]:
    if setting:
        return setting, "setting"
    known = _int(data, "max_input_tokens")
    return (known, "litellm") if known else (DEFAULT_CONTEXT_WINDOW, "default")


def _supports_reasoning(ref: ModelRef, data: dict[str, Any]) -> bool:
    if not data:
        return False
    if not is_loaded():
        return bool(data.get("supports_reasoning"))
    check = getattr(litellm_module(), "supports_reasoning", None)
    if check is None:
        return bool(data.get("supports_reasoning"))
    try:
        return bool(check(model=ref.litellm_model))
    except Exception:
        return bool(data.get("supports_reasoning"))


def _supports_xhigh(ref: ModelRef, data: dict[str, Any]) -> bool:
    """pi's ``supportsXhigh`` (GPT-5.2/5.3, Anthropic Opus 4.6) or litellm's own flag."""
    model_id = ref.model_id
    if "gpt-5.2" in model_id or "gpt-5.3" in model_id:
        return True
    if ref.api == "anthropic-messages" and ("opus-4-6" in model_id or "opus-4.6" in model_id):
        return True
    return bool(data.get("supports_xhigh_reasoning_effort"))


def _prices(data: dict[str, Any]) -> TokenPrices:
    def price(key: str) -> float:
        value = data.get(key)
        return float(value) if isinstance(value, int | float) else 0.0

    return TokenPrices(
        input=price("input_cost_per_token"),
        output=price("output_cost_per_token"),
        cache_read=price("cache_read_input_token_cost"),
        cache_write=price("cache_creation_input_token_cost"),
    )


def _int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return int(value) if isinstance(value, int | float) and value > 0 else None


logger = logging.getLogger(__name__)

TABLE = "model_prices_and_context_window_backup.json"


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return {}
    try:
        data = json.loads((Path(spec.origin).parent / TABLE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        logger.warning("cannot read litellm's model table: %s", exc)
        return {}
    return data if isinstance(data, dict) else {}


def bundled_model_data(litellm_provider: str, model_id: str) -> dict[str, Any]:
    """The table's entry for a model of a provider (litellm's spelling), or ``{}``."""
    table = _table()
    for key in (f"{litellm_provider}/{model_id}", model_id):
        entry = table.get(key)
        if isinstance(entry, dict) and entry.get("litellm_provider") == litellm_provider:
            return dict(entry)
    return {}


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
    "max": "max",
}


def available_thinking_levels(model: ModelInfo) -> tuple[ThinkingLevel, ...]:
    """The levels ``model`` offers, weakest first."""
    if not model.reasoning:
        return ("off",)
    return THINKING_LEVELS[:-1] if model.supports_xhigh else THINKING_LEVELS[:-2]


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
    budget = merged["high" if level in ("xhigh", "max") else level]
    max_tokens = min(base + budget, model.max_output_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - _MIN_OUTPUT_TOKENS)
    return {"max_tokens": max_tokens, "thinking": {"type": "enabled", "budget_tokens": budget}}


def _adaptive_anthropic(model: ModelInfo) -> bool:
    """Opus 4.6 takes an effort level instead of a budget (pi's ``supportsAdaptiveThinking``)."""
    model_id = model.ref.model_id.lower()
    return "opus-4-6" in model_id or "opus-4.6" in model_id

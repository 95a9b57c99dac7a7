"""Model references, pi's api names, context windows from litellm, thinking levels and parameters."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pi_lsp.agent.llm import litellm_module
from pi_lsp.agent.models import (
    DEFAULT_CONTEXT_WINDOW,
    THINKING_LEVELS,
    ModelInfo,
    ModelRef,
    available_thinking_levels,
    clamp_thinking_level,
    completion_params,
    resolve_model,
)


@pytest.mark.parametrize(
    ("text", "provider", "model_id", "litellm_model", "api"),
    [
        ("openai/gpt-4o", "openai", "gpt-4o", "openai/gpt-4o", "openai-completions"),
        (
            "anthropic/claude-sonnet-4-5",
            "anthropic",
            "claude-sonnet-4-5",
            "anthropic/claude-sonnet-4-5",
            "anthropic-messages",
        ),
        (
            "gemini/gemini-2.5-pro",
            "google",
            "gemini-2.5-pro",
            "gemini/gemini-2.5-pro",
            "google-generative-ai",
        ),
        (
            "google/gemini-2.5-pro",
            "google",
            "gemini-2.5-pro",
            "gemini/gemini-2.5-pro",
            "google-generative-ai",
        ),
        (
            "bedrock/anthropic.claude",
            "amazon-bedrock",
            "anthropic.claude",
            "bedrock/anthropic.claude",
            "bedrock-converse-stream",
        ),
        (
            "openrouter/anthropic/claude-sonnet-4.5",
            "openrouter",
            "anthropic/claude-sonnet-4.5",
            "openrouter/anthropic/claude-sonnet-4.5",
            "openai-completions",
        ),
    ],
)
def test_model_ref_parse(
    text: str, provider: str, model_id: str, litellm_model: str, api: str
) -> None:
    ref = ModelRef.parse(text)
    assert (ref.provider, ref.model_id, ref.litellm_model, ref.api) == (
        provider,
        model_id,
        litellm_model,
        api,
    )
    assert str(ref) == f"{provider}/{model_id}"


def test_model_ref_needs_a_provider() -> None:
    with pytest.raises(ValueError, match="provider/model"):
        ModelRef.parse("gpt-4o")
    assert ModelRef.parse("gpt-4o", default_provider="openai") == ModelRef("openai", "gpt-4o")
    with pytest.raises(ValueError):
        ModelRef.parse("openai/")


def test_context_window_comes_from_litellm_input_limit() -> None:
    info = resolve_model(ModelRef.parse("openai/gpt-4o"))
    assert (info.context_window, info.context_window_source, info.known) == (
        128000,
        "litellm",
        True,
    )
    assert (
        info.max_output_tokens == 16384
    )  # not the window: get_max_tokens would say 16384 for both
    assert info.prices.input > 0 and info.supports_images
    claude = resolve_model(ModelRef.parse("anthropic/claude-sonnet-4-5"))
    assert claude.context_window == 200000 and claude.reasoning


def test_registered_model_is_resolved() -> None:
    litellm_module().register_model(
        {
            "openai/pi-lsp-test-window": {
                "max_input_tokens": 12345,
                "max_output_tokens": 999,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        }
    )
    info = resolve_model(ModelRef.parse("openai/pi-lsp-test-window"))
    assert (info.context_window, info.max_output_tokens, info.context_window_source) == (
        12345,
        999,
        "litellm",
    )
    assert not info.reasoning


def test_unknown_model_uses_settings_then_the_default() -> None:
    ref = ModelRef.parse("openai/no-such-model-anywhere")
    guessed = resolve_model(ref)
    assert (guessed.context_window, guessed.context_window_source, guessed.known) == (
        DEFAULT_CONTEXT_WINDOW,
        "default",
        False,
    )
    assert not guessed.reasoning and guessed.prices.input == 0
    configured = resolve_model(ref, context_window=32768, max_output_tokens=2048, reasoning=True)
    assert (configured.context_window, configured.context_window_source) == (32768, "setting")
    assert configured.max_output_tokens == 2048 and configured.reasoning


def test_setting_overrides_a_known_window() -> None:
    info = resolve_model(ModelRef.parse("openai/gpt-4o"), context_window=64000)
    assert (info.context_window, info.context_window_source) == (64000, "setting")


def test_thinking_levels_offered() -> None:
    plain = resolve_model(ModelRef.parse("openai/gpt-4o"))
    assert available_thinking_levels(plain) == ("off",)
    reasoning = resolve_model(ModelRef.parse("openai/gpt-5"))
    assert available_thinking_levels(reasoning) == ("off", "minimal", "low", "medium", "high")
    xhigh = resolve_model(ModelRef.parse("openai/gpt-5.2"))
    assert available_thinking_levels(xhigh) == THINKING_LEVELS[:-1]  # no model maps max
    opus = resolve_model(ModelRef.parse("anthropic/claude-opus-4-6"))
    assert "xhigh" in available_thinking_levels(opus)


def _reasoner(**changes: object) -> ModelInfo:
    base = resolve_model(ModelRef.parse("openai/gpt-5"))
    return replace(base, **changes)  # type: ignore[arg-type]


def test_clamping_goes_up_first_then_down() -> None:
    plain = resolve_model(ModelRef.parse("openai/gpt-4o"))
    assert [clamp_thinking_level(plain, level) for level in THINKING_LEVELS] == ["off"] * 7
    reasoning = _reasoner()
    assert clamp_thinking_level(reasoning, "xhigh") == "high"
    assert clamp_thinking_level(reasoning, "minimal") == "minimal"
    only_high = _reasoner(supports_xhigh=True)
    assert clamp_thinking_level(only_high, "xhigh") == "xhigh"
    # pi 1.6.0's max: offered only where a model maps it; clamps down otherwise
    assert clamp_thinking_level(only_high, "max") == "xhigh"
    assert clamp_thinking_level(reasoning, "max") == "high"


def test_openai_reasoning_effort_parameters() -> None:
    reasoning = _reasoner()
    assert completion_params(reasoning, "off") == {"max_tokens": 32000}
    assert completion_params(reasoning, "low", max_tokens=1000) == {
        "max_tokens": 1000,
        "reasoning_effort": "low",
    }
    assert completion_params(reasoning, "xhigh")["reasoning_effort"] == "high"
    plain = resolve_model(ModelRef.parse("openai/gpt-4o"))
    assert completion_params(plain, "high") == {"max_tokens": 16384}


def test_anthropic_budgets_follow_pi() -> None:
    claude = resolve_model(ModelRef.parse("anthropic/claude-sonnet-4-5"))
    assert claude.max_output_tokens == 64000
    assert completion_params(claude, "medium") == {
        "max_tokens": 32000 + 8192,
        "thinking": {"type": "enabled", "budget_tokens": 8192},
    }
    assert (
        completion_params(claude, "minimal", max_tokens=1000)["thinking"]["budget_tokens"] == 1024
    )
    assert completion_params(claude, "high", budgets={"high": 30000}) == {
        "max_tokens": 62000,
        "thinking": {"type": "enabled", "budget_tokens": 30000},
    }
    tight = replace(claude, max_output_tokens=4000)
    assert completion_params(tight, "high") == {
        "max_tokens": 4000,
        "thinking": {"type": "enabled", "budget_tokens": 4000 - 1024},
    }


def test_adaptive_anthropic_models_take_an_effort() -> None:
    opus = resolve_model(ModelRef.parse("anthropic/claude-opus-4-6"))
    assert completion_params(opus, "xhigh")["reasoning_effort"] == "max"
    assert completion_params(opus, "minimal")["reasoning_effort"] == "low"

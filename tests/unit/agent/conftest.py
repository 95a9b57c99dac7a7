"""Fixtures for the model-access tests: the scripted OpenAI server and models litellm resolves."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pi_lsp.agent.llm import litellm_module
from pi_lsp.agent.models import ModelInfo, ModelRef, resolve_model
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Turn

PRICED_MODEL = "openai/pi-lsp-test-priced"
"""A model registered with litellm for these tests: known window, prices, reasoning."""
PRICES = {
    "input_cost_per_token": 1e-6,
    "output_cost_per_token": 4e-6,
    "cache_read_input_token_cost": 1e-7,
}

MakeFake = Callable[..., FakeOpenAI]


@pytest.fixture(scope="session", autouse=True)
def registered_models() -> None:
    """Register the test models once (litellm's model map is process-global)."""
    litellm_module().register_model(
        {
            PRICED_MODEL: {
                "max_input_tokens": 32000,
                "max_output_tokens": 4000,
                "litellm_provider": "openai",
                "mode": "chat",
                "supports_reasoning": True,
                **PRICES,
            }
        }
    )


@pytest.fixture
def make_fake() -> Iterator[MakeFake]:
    """Start scripted servers; every one is stopped (threads joined) after the test."""
    started: list[FakeOpenAI] = []

    def make(turns: list[Turn] | None = None, **options: object) -> FakeOpenAI:
        fake = FakeOpenAI(turns, **options)  # type: ignore[arg-type]
        fake.start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()


@pytest.fixture
def plain_model() -> ModelInfo:
    """A model litellm does not know (no reasoning, no prices, default window)."""
    return resolve_model(ModelRef.parse("openai/fake-model"))


@pytest.fixture
def priced_model() -> ModelInfo:
    """The registered test model."""
    return resolve_model(ModelRef.parse(PRICED_MODEL))

"""Helpers shared by the model-access tests."""

from __future__ import annotations

from pi_lsp.agent.models import ModelInfo, ModelRef, TokenPrices
from pi_lsp.agent.stream import Endpoint, ModelRequest
from pi_lsp.devtools.builders import user
from pi_lsp.devtools.fake_openai import FakeOpenAI

THINKING_THEN_TEXT = [
    "start",
    "thinking_start",
    "thinking_delta",
    "thinking_delta",
    "thinking_end",
    "text_start",
    "text_delta",
    "text_end",
    "done",
]
"""The event types of a reply that thinks in two deltas, then answers in one."""


def model_info(ref: str = "openai/gpt-4o", **fields: object) -> ModelInfo:
    """A known model with a 128k window from settings and no prices; ``fields`` override."""
    values: dict[str, object] = {
        "context_window": 128000,
        "context_window_source": "setting",
        "max_output_tokens": 16384,
        "reasoning": False,
        "supports_xhigh": False,
        "supports_images": True,
        "prices": TokenPrices(),
        "known": True,
        **fields,
    }
    return ModelInfo(ref=ModelRef.parse(ref), **values)  # type: ignore[arg-type]


def request(model: ModelInfo, fake: FakeOpenAI, **options: object) -> ModelRequest:
    """A request for one user message against ``fake``."""
    fields: dict[str, object] = {
        "model": model,
        "messages": [user("hi")],
        "endpoint": Endpoint(api_base=fake.base_url, api_key="test-key"),
        **options,
    }
    return ModelRequest(**fields)  # type: ignore[arg-type]

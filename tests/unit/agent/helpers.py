"""Helpers shared by the model-access tests."""

from __future__ import annotations

from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import Endpoint, ModelRequest
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.session.jsonl import JsonObject


def user(text: str, timestamp: int = 1) -> JsonObject:
    """A pi user message."""
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def request(model: ModelInfo, fake: FakeOpenAI, **options: object) -> ModelRequest:
    """A request for one user message against ``fake``."""
    fields: dict[str, object] = {
        "model": model,
        "messages": [user("hi")],
        "endpoint": Endpoint(api_base=fake.base_url, api_key="test-key"),
        **options,
    }
    return ModelRequest(**fields)  # type: ignore[arg-type]

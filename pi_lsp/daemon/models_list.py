"""Which models the daemon offers: those of providers with credentials, plus configured ones."""

from __future__ import annotations

import os
from typing import Any

from pi_lsp.agent.errors import PROVIDER_KEY_ENV
from pi_lsp.agent.llm import load_litellm
from pi_lsp.agent.models import ModelRef
from pi_lsp.settings import Settings

_LITELLM_PROVIDERS = {"google": "gemini", "amazon-bedrock": "bedrock", "google-vertex": "vertex_ai"}


async def available_models(
    settings: Settings, *, with_litellm: bool = True
) -> list[dict[str, Any]]:
    """``[{id, provider, modelId}]`` of the models a user can pick.

    Settings' models come first, then litellm's chat models of every provider whose API key
    variable is set (litellm is imported off the event loop; ``with_litellm=False`` skips
    them, for an answer that must not wait seconds for that import).
    """
    found: dict[str, dict[str, Any]] = {}

    def add(provider: str, model_id: str) -> None:
        key = f"{provider}/{model_id}"
        found.setdefault(key, {"id": key, "provider": provider, "modelId": model_id})

    if settings.defaultModel:
        ref = ModelRef.parse(
            settings.defaultModel, default_provider=settings.defaultProvider or "openai"
        )
        add(ref.provider, ref.model_id)
    for name in settings.models:
        provider, _, model_id = name.partition("/")
        if model_id:
            add(provider, model_id)
    configured = [
        p for p, var in PROVIDER_KEY_ENV.items() if " " not in var and os.environ.get(var)
    ]
    if configured and with_litellm:
        litellm = await load_litellm()
        by_provider: dict[str, Any] = getattr(litellm, "models_by_provider", {})
        for provider in configured:
            for model_id in sorted(by_provider.get(_LITELLM_PROVIDERS.get(provider, provider), ())):
                info = litellm.model_cost.get(model_id) or {}
                if info.get("mode", "chat") == "chat":
                    add(provider, model_id.split("/", 1)[-1] if "/" in model_id else model_id)
    return list(found.values())

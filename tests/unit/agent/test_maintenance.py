"""The retry decision after a failed reply: pi's delays, capped, and servers asking too long."""

from __future__ import annotations

import asyncio

from pi_lsp.agent import resolve
from pi_lsp.agent.maintenance import after_error, retry_delay_ms
from pi_lsp.agent.models import ModelInfo, ModelRef
from pi_lsp.settings import RetrySettings, Settings


def test_retry_waits_stop_at_max_agent_delay_and_long_server_waits_fail() -> None:
    retry = RetrySettings(baseDelayMs=2000, maxAgentDelayMs=5000, maxRetries=9)
    assert [retry_delay_ms(retry, n) for n in (1, 2, 3, 4)] == [2000, 4000, 5000, 5000]
    model = asyncio.run(_model())
    busy = {"role": "assistant", "stopReason": "error", "errorMessage": "429 rate limit",
            "usage": {}, "retryAfterMs": 9000}  # fmt: skip
    waits = RetrySettings.model_validate({"provider": {"maxRetryDelayMs": 10000}})
    assert after_error(busy, model, waits, 0).action == "retry"
    short = RetrySettings.model_validate({"provider": {"maxRetryDelayMs": 8000}})
    assert after_error(busy, model, short, 0).action == "give_up"


async def _model() -> ModelInfo:
    return await resolve(ModelRef("openai", "gpt-4o"), Settings())

"""complete_text: the summarizer's one-shot call through the same model access."""

from __future__ import annotations

import pytest

from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import CompletionError, Endpoint, complete_text
from pi_lsp.devtools.fake_script import ScriptError, ScriptUsage, Turn
from tests.unit.agent.conftest import MakeFake


async def test_returns_text_usage_and_sends_one_user_message(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake(
        [Turn(reasoning="hm", text="## Goal\nShip it.", usage=ScriptUsage(prompt_tokens=40))]
    )
    result = await complete_text(
        plain_model,
        system_prompt="You summarize.",
        prompt="<conversation>…</conversation>",
        max_tokens=13107,
        reasoning="high",
        endpoint=Endpoint(api_base=fake.base_url, api_key="k"),
    )
    assert result.text == "## Goal\nShip it."
    assert result.stop_reason == "stop"
    assert result.usage["input"] == 40
    (body,) = fake.bodies
    assert body["messages"] == [
        {"role": "system", "content": "You summarize."},
        {"role": "user", "content": [{"type": "text", "text": "<conversation>…</conversation>"}]},
    ]
    assert body["max_tokens"] == 13107
    assert "reasoning_effort" not in body  # the model has no reasoning: "high" clamps to off
    assert "tools" not in body


async def test_reasoning_is_sent_to_reasoning_models(
    make_fake: MakeFake, priced_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="summary")])
    endpoint = Endpoint(api_base=fake.base_url, api_key="k")
    await complete_text(
        priced_model,
        system_prompt="S",
        prompt="P",
        max_tokens=500,
        reasoning="high",
        endpoint=endpoint,
    )
    assert fake.bodies[0]["reasoning_effort"] == "high"


async def test_text_blocks_are_joined_and_length_is_returned(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="cut", finish_reason="length")])
    result = await complete_text(
        plain_model,
        system_prompt="S",
        prompt="P",
        max_tokens=5,
        endpoint=Endpoint(api_base=fake.base_url, api_key="k"),
    )
    assert (result.text, result.stop_reason) == ("cut", "length")


async def test_provider_failure_raises_completion_error(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(error=ScriptError(status=503))])
    with pytest.raises(CompletionError) as caught:
        await complete_text(
            plain_model,
            system_prompt="S",
            prompt="P",
            max_tokens=5,
            endpoint=Endpoint(api_base=fake.base_url, api_key="k"),
        )
    assert caught.value.stop_reason == "error"
    assert str(caught.value).startswith("503 ")
    assert caught.value.failure is not None and caught.value.failure.status == 503
    assert f"Summarization failed: {caught.value}".startswith("Summarization failed: 503")

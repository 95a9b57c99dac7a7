"""The compaction summarizer's model protocol, served by LitellmTextModel through the fake server."""

from __future__ import annotations

import pytest

from pi_lsp.agent.models import ModelRef, resolve_model
from pi_lsp.agent.stream import Endpoint, LitellmTextModel
from pi_lsp.compaction.models import SummarizationError
from pi_lsp.compaction.summarize import SummaryModel, history_request, send
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import ScriptError, Turn

MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "Rename foo to bar"}], "timestamp": 1}
]


async def test_history_summary_through_litellm() -> None:
    with FakeOpenAI(
        [Turn(text="## Goal\nRename foo."), Turn(error=ScriptError(status=503))]
    ) as fake:
        info = resolve_model(ModelRef.parse("openai/fake-model"), context_window=50000)
        model: SummaryModel = LitellmTextModel(
            model=info, endpoint=Endpoint(api_base=fake.base_url, api_key="k")
        )
        assert (model.supports_reasoning, model.context_window) == (False, 50000)
        request = history_request(
            MESSAGES, reserve_tokens=16384, previous_summary=None, focus=None, reasoning=False
        )
        summary = await send(model, request, "Summarization failed")
        with pytest.raises(SummarizationError, match=r"^Summarization failed: 503 "):
            await send(model, request, "Summarization failed")
    assert summary == "## Goal\nRename foo."
    body = fake.bodies[0]
    assert body["max_tokens"] == 13107
    assert body["messages"][0]["role"] == "system"
    assert "Rename foo to bar" in body["messages"][1]["content"][0]["text"]

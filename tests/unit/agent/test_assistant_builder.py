"""The builder on chunk shapes the fake OpenAI server cannot produce (litellm's Anthropic deltas)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pi_lsp.agent.assistant_builder import REDACTED_THINKING, AssistantBuilder
from pi_lsp.agent.models import TokenPrices
from pi_lsp.session.messages import AssistantMessage
from tests.unit.agent.helpers import THINKING_THEN_TEXT, model_info

CLAUDE = model_info(
    "anthropic/claude-sonnet-4-5",
    context_window=200000,
    context_window_source="litellm",
    max_output_tokens=64000,
    reasoning=True,
    prices=TokenPrices(input=3e-6, output=15e-6, cache_read=3e-7, cache_write=3.75e-6),
)


def chunk(finish: str | None = None, usage: Any = None, **delta: Any) -> SimpleNamespace:
    fields = {
        "content": None,
        "reasoning_content": None,
        "thinking_blocks": None,
        "tool_calls": None,
    }
    choice = SimpleNamespace(finish_reason=finish, delta=SimpleNamespace(**{**fields, **delta}))
    return SimpleNamespace(choices=[choice], usage=usage)


def test_anthropic_thinking_signature_and_cache_usage() -> None:
    builder = AssistantBuilder(CLAUDE)
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "prompt_tokens_details": {"cached_tokens": 600, "cache_creation_tokens": 100},
    }
    events = [builder.start()]
    for piece in (
        chunk(reasoning_content="Plan", thinking_blocks=[{"type": "thinking", "thinking": "Plan"}]),
        chunk(reasoning_content=" more"),
        chunk(
            reasoning_content="",
            thinking_blocks=[{"type": "thinking", "thinking": "", "signature": "SIG"}],
        ),
        chunk(content="Answer"),
        chunk(finish="stop", usage=usage),
    ):
        events += builder.feed(piece)
    events += builder.finish()
    message = events[-1]["message"]
    AssistantMessage.model_validate(message)
    assert message["content"] == [
        {"type": "thinking", "thinking": "Plan more", "thinkingSignature": "SIG"},
        {"type": "text", "text": "Answer"},
    ]
    assert [e["type"] for e in events] == THINKING_THEN_TEXT
    assert {
        k: message["usage"][k]
        for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
    } == {
        "input": 300,
        "output": 50,
        "cacheRead": 600,
        "cacheWrite": 100,
        "totalTokens": 1050,
    }
    assert abs(message["usage"]["cost"]["cacheWrite"] - 100 * 3.75e-6) < 1e-12


def test_redacted_thinking_is_kept_as_an_opaque_block() -> None:
    builder = AssistantBuilder(CLAUDE)
    builder.feed(chunk(thinking_blocks=[{"type": "redacted_thinking", "data": "ENCRYPTED"}]))
    builder.feed(chunk(content="ok", finish="stop"))
    message = builder.finish()[-1]["message"]
    assert message["content"][0] == {
        "type": "thinking",
        "thinking": REDACTED_THINKING,
        "thinkingSignature": "ENCRYPTED",
        "redacted": True,
    }


def test_tool_calls_split_by_index_without_repeated_ids() -> None:
    builder = AssistantBuilder(CLAUDE)
    fn = SimpleNamespace
    builder.feed(
        chunk(tool_calls=[fn(id="a", index=0, function=fn(name="read", arguments='{"path":'))])
    )
    builder.feed(chunk(tool_calls=[fn(id=None, index=0, function=fn(name=None, arguments='"x"}'))]))
    builder.feed(chunk(tool_calls=[fn(id=None, index=1, function=fn(name="ls", arguments=""))]))
    events = builder.finish()
    calls = [b for b in events[-1]["message"]["content"] if b["type"] == "toolCall"]
    assert [(c["id"][:5], c["name"], c["arguments"]) for c in calls] == [
        ("a", "read", {"path": "x"}),
        ("call_", "ls", {}),
    ]
    assert events[-1]["reason"] == "toolUse"


def test_abort_keeps_best_effort_partial_arguments() -> None:
    builder = AssistantBuilder(CLAUDE)
    fn = SimpleNamespace
    builder.feed(
        chunk(
            tool_calls=[
                fn(id="a", index=0, function=fn(name="write", arguments='{"path": "a.py", "con'))
            ]
        )
    )
    (event,) = builder.fail(None)
    assert (event["type"], event["reason"]) == ("error", "aborted")
    assert event["error"]["content"][0]["arguments"] == {"path": "a.py"}
    assert builder.invalid_arguments == {}

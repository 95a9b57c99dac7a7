"""stream_assistant through real litellm against the scripted server: events, partials, final message."""

from __future__ import annotations

import asyncio
import copy

import pytest

from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import AssistantStream, stream_assistant
from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_script import ScriptToolCall, ScriptUsage, Turn
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import AssistantMessage
from tests.unit.agent.conftest import PRICES, MakeFake
from tests.unit.agent.helpers import THINKING_THEN_TEXT, request


async def collect(stream: AssistantStream) -> list[JsonObject]:
    """Every event, with a snapshot of the partial message as it was when the event arrived."""
    events = []
    async for event in stream:
        events.append(copy.deepcopy(event))
    return events


def types(events: list[JsonObject]) -> list[str]:
    return [event["type"] for event in events]


async def test_text_reply_events_and_growing_partial(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="Hello world", chunk_size=4)])
    events = await collect(stream_assistant(request(plain_model, fake)))
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    deltas = [e["delta"] for e in events if e["type"] == "text_delta"]
    assert deltas == ["Hell", "o wo", "rld"]
    partial_texts = [e["partial"]["content"][0]["text"] for e in events[2:5]]
    assert partial_texts == ["Hell", "Hello wo", "Hello world"]
    assert all(e["contentIndex"] == 0 for e in events[1:6])
    assert events[5]["content"] == "Hello world"
    assert events[-1]["reason"] == "stop"
    final = events[-1]["message"]
    AssistantMessage.model_validate(final)
    assert final["content"] == [{"type": "text", "text": "Hello world"}]
    assert (final["api"], final["provider"], final["model"]) == (
        "openai-completions",
        "openai",
        "fake-model",
    )
    assert final["stopReason"] == "stop"
    assert "errorMessage" not in final
    assert isinstance(final["timestamp"], int) and final["timestamp"] > 1_600_000_000_000


async def test_thinking_then_text(make_fake: MakeFake, plain_model: ModelInfo) -> None:
    fake = make_fake([Turn(reasoning="Let me think.", text="Answer.", chunk_size=8)])
    events = await collect(stream_assistant(request(plain_model, fake)))
    assert types(events) == THINKING_THEN_TEXT
    assert [e["contentIndex"] for e in events[1:8]] == [0, 0, 0, 0, 1, 1, 1]
    assert events[4]["content"] == "Let me think."
    final = events[-1]["message"]
    AssistantMessage.model_validate(final)
    assert final["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "thinkingSignature": "reasoning_content"},
        {"type": "text", "text": "Answer."},
    ]


async def test_parallel_tool_calls_parse_progressively(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    calls = [
        ScriptToolCall(name="read", arguments={"path": "src/app.py", "offset": 10}, id="call_a"),
        ScriptToolCall(name="bash", arguments={"command": "pytest -q"}, id="call_b"),
    ]
    fake = make_fake([Turn(text="Checking.", tool_calls=calls, chunk_size=3)])
    stream = stream_assistant(request(plain_model, fake, tools=[("read", "Read", {})]))
    events = await collect(stream)
    call_events = [e for e in events if e["type"].startswith("toolcall")]
    assert [e["type"] for e in call_events if e["type"] != "toolcall_delta"] == [
        "toolcall_start",
        "toolcall_end",
        "toolcall_start",
        "toolcall_end",
    ]
    first_deltas = [
        e for e in call_events if e["type"] == "toolcall_delta" and e["contentIndex"] == 1
    ]
    seen = [e["partial"]["content"][1]["arguments"] for e in first_deltas]
    assert seen[-1] == {"path": "src/app.py", "offset": 10}
    assert any(args and args != seen[-1] for args in seen)  # partial objects while streaming
    assert "".join(e["delta"] for e in first_deltas) == '{"path": "src/app.py", "offset": 10}'
    ends = [e for e in call_events if e["type"] == "toolcall_end"]
    assert ends[0]["toolCall"] == {
        "type": "toolCall",
        "id": "call_a",
        "name": "read",
        "arguments": {"path": "src/app.py", "offset": 10},
    }
    assert ends[1]["contentIndex"] == 2 and ends[1]["toolCall"]["id"] == "call_b"
    assert events[-1] == {**events[-1], "type": "done", "reason": "toolUse"}
    AssistantMessage.model_validate(stream.message)
    assert stream.message["stopReason"] == "toolUse"
    assert stream.invalid_arguments == {}


async def test_invalid_tool_arguments_are_reported_not_raised(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    bad = ScriptToolCall(name="edit", arguments='{"path": "a.py", oops', id="call_bad")
    good = ScriptToolCall(name="ls", arguments={}, id="call_ok")
    fake = make_fake([Turn(tool_calls=[bad, good])])
    stream = stream_assistant(request(plain_model, fake))
    message = await stream.result()
    assert message["stopReason"] == "toolUse"
    assert [b["arguments"] for b in message["content"]] == [{}, {}]
    assert list(stream.invalid_arguments) == ["call_bad"]
    assert stream.invalid_arguments["call_bad"].raw == '{"path": "a.py", oops'
    assert stream.invalid_arguments["call_bad"].error


async def test_usage_and_cost_from_litellm_prices(
    make_fake: MakeFake, priced_model: ModelInfo
) -> None:
    usage = ScriptUsage(prompt_tokens=1200, completion_tokens=300, cached_tokens=200)
    fake = make_fake([Turn(text="ok", usage=usage)])
    message = await stream_assistant(request(priced_model, fake)).result()
    AssistantMessage.model_validate(message)
    assert {k: v for k, v in message["usage"].items() if k != "cost"} == {
        "input": 1000,
        "output": 300,
        "cacheRead": 200,
        "cacheWrite": 0,
        "totalTokens": 1500,
    }
    cost = message["usage"]["cost"]
    assert cost["input"] == pytest.approx(1000 * PRICES["input_cost_per_token"])
    assert cost["output"] == pytest.approx(300 * PRICES["output_cost_per_token"])
    assert cost["cacheRead"] == pytest.approx(200 * PRICES["cache_read_input_token_cost"])
    assert cost["total"] == pytest.approx(cost["input"] + cost["output"] + cost["cacheRead"])


async def test_unknown_model_costs_nothing(make_fake: MakeFake, plain_model: ModelInfo) -> None:
    fake = make_fake([Turn(text="ok", usage=ScriptUsage(prompt_tokens=50, completion_tokens=5))])
    message = await stream_assistant(request(plain_model, fake)).result()
    assert message["usage"]["input"] == 50
    assert message["usage"]["cost"]["total"] == 0


@pytest.mark.parametrize(
    ("turn", "stop_reason"),
    [
        (Turn(text="done"), "stop"),
        (Turn(text="cut off", finish_reason="length"), "length"),
        (tool_turn("ls", {}), "toolUse"),
        (tool_turn("ls", {}, finish_reason="stop"), "toolUse"),
    ],
)
async def test_stop_reason_mapping(
    make_fake: MakeFake, plain_model: ModelInfo, turn: Turn, stop_reason: str
) -> None:
    fake = make_fake([turn])
    events = await collect(stream_assistant(request(plain_model, fake)))
    assert events[-1]["type"] == "done"
    assert events[-1]["reason"] == stop_reason == events[-1]["message"]["stopReason"]


async def test_content_filter_ends_as_error(make_fake: MakeFake, plain_model: ModelInfo) -> None:
    fake = make_fake([Turn(text="partial", finish_reason="content_filter")])
    events = await collect(stream_assistant(request(plain_model, fake)))
    assert events[-1]["type"] == "error" and events[-1]["reason"] == "error"
    message = events[-1]["error"]
    AssistantMessage.model_validate(message)
    assert message["stopReason"] == "error"
    assert "content_filter" in message["errorMessage"]
    assert message["content"] == [{"type": "text", "text": "partial"}]


async def test_request_body_carries_system_prompt_tools_and_stream_options(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="ok")])
    tools = [
        ("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
    ]
    await stream_assistant(
        request(plain_model, fake, system_prompt="You are pi.", tools=tools, temperature=0.2)
    ).result()
    (recorded,) = fake.requests
    body = recorded.body
    assert body["messages"] == [
        {"role": "system", "content": "You are pi."},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read a file", "parameters": tools[0][2]},
        }
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 16384  # min(unknown model's 16384, 32000)
    assert body["temperature"] == 0.2
    assert "reasoning_effort" not in body
    assert recorded.headers.get("authorization") == "Bearer test-key"


async def test_stopping_at_the_final_event_keeps_the_reply(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="complete")])
    abort = asyncio.Event()
    stream = stream_assistant(request(plain_model, fake, abort=abort))
    async for event in stream:
        if event["type"] == "done":
            break
    abort.set()  # a late abort (the loop's, after the reply) must not touch the finished reply
    await asyncio.sleep(0)
    await stream.aclose()
    assert stream.message["stopReason"] == "stop"
    assert "errorMessage" not in stream.message
    assert fake.completed_streams == 1

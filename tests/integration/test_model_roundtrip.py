"""A two-call exchange through real litellm: the streamed reply goes back into the next request."""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from pi_lsp.agent.models import ModelRef, resolve_model
from pi_lsp.agent.stream import Endpoint, ModelRequest, stream_assistant
from pi_lsp.devtools.builders import tool_result, user
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import ScriptToolCall, Turn
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import AssistantMessage, ContextMessage

IMAGE = {"type": "image", "data": "R0lGODlhAQABAAAAACw=", "mimeType": "image/gif"}
CONTEXT = TypeAdapter(list[ContextMessage])


async def test_reply_with_tool_calls_round_trips_into_the_next_request() -> None:
    first = Turn(
        reasoning="I should look.",
        text="Let me look.",
        tool_calls=[
            ScriptToolCall(name="read", arguments={"path": "src/ünïcode.py"}),
            ScriptToolCall(name="screenshot", arguments={}),
        ],
    )
    with FakeOpenAI([first, Turn(text="Done.")]) as fake:
        model = resolve_model(ModelRef.parse("openai/fake-model"))
        endpoint = Endpoint(api_base=fake.base_url, api_key="k")
        history: list[JsonObject] = [
            {
                "role": "compactionSummary",
                "summary": "Earlier work.",
                "tokensBefore": 9,
                "timestamp": 1,
            },
            {
                "role": "bashExecution",
                "command": "git status",
                "output": "clean",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1,
            },
            user("Fix the bug", ts=2),
        ]
        tools = [
            ("read", "Read a file", {"type": "object"}),
            ("screenshot", "Capture", {"type": "object"}),
        ]
        reply = await stream_assistant(
            ModelRequest(
                model=model, messages=history, tools=tools, system_prompt="SYS", endpoint=endpoint
            )
        ).result()
        AssistantMessage.model_validate(reply)
        read_call, shot_call = (b for b in reply["content"] if b["type"] == "toolCall")
        history += [
            reply,
            tool_result("print('hi')", read_call["id"], read_call["name"], ts=3),
            tool_result([IMAGE], shot_call["id"], shot_call["name"], ts=3),
        ]
        CONTEXT.validate_python(history)
        final = await stream_assistant(
            ModelRequest(
                model=model, messages=history, tools=tools, system_prompt="SYS", endpoint=endpoint
            )
        ).result()
    assert final["content"] == [{"type": "text", "text": "Done."}]
    sent = fake.bodies[1]["messages"]
    assert [m["role"] for m in sent] == [
        "system",
        "user",
        "user",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
    ]
    assert sent[1]["content"][0]["text"].endswith("<summary>\nEarlier work.\n</summary>")
    assert sent[2]["content"][0]["text"] == "Ran `git status`\n```\nclean\n```"
    assistant = sent[4]
    assert assistant["content"] == "Let me look."
    assert "reasoning_content" not in assistant  # thinking is not replayed to chat completions
    assert [c["id"] for c in assistant["tool_calls"]] == [read_call["id"], shot_call["id"]]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {
        "path": "src/ünïcode.py"
    }
    assert [(m["tool_call_id"], m["content"]) for m in sent[5:7]] == [
        (read_call["id"], "print('hi')"),
        (shot_call["id"], "(see attached image)"),
    ]
    assert sent[7]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="},
    }

"""The scripted OpenAI-compatible server on its own: wire shapes, script selection, lifecycle, CLI."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Rule, Script, ScriptError, ScriptToolCall, ScriptUsage, Turn
from tests.integration.fake_openai_cli import fake_openai_cli


def post(fake: FakeOpenAI, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(
        f"{fake.base_url}/chat/completions", data, {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def sse_payloads(raw: bytes) -> list[Any]:
    lines = [line[len(b"data: ") :] for line in raw.split(b"\n") if line.startswith(b"data: ")]
    return [line.decode() if line == b"[DONE]" else json.loads(line) for line in lines]


def chat(content: str, *, stream: bool = False, usage: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "m",
        "messages": [{"role": "user", "content": content}],
        "stream": stream,
    }
    if usage:
        body["stream_options"] = {"include_usage": True}
    return body


def test_non_streaming_completion_with_tool_calls_and_reasoning() -> None:
    turn = Turn(
        text="Reading.",
        reasoning="plan",
        tool_calls=[ScriptToolCall(name="read", arguments={"path": "a.py"}, id="c1")],
        usage=ScriptUsage(prompt_tokens=20, completion_tokens=5, cached_tokens=4),
    )
    with FakeOpenAI([turn]) as fake:
        status, _, raw = post(fake, chat("hi"))
    assert status == 200
    payload = json.loads(raw)
    choice = payload["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"] == {
        "role": "assistant",
        "content": "Reading.",
        "reasoning_content": "plan",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "a.py"}'},
            }
        ],
    }
    assert payload["usage"] == {
        "prompt_tokens": 20,
        "completion_tokens": 5,
        "total_tokens": 25,
        "prompt_tokens_details": {"cached_tokens": 4},
    }


def test_streaming_fragments_tool_calls_like_openai() -> None:
    turn = tool_turn("ls", {"path": "src"}, text="ok", chunk_size=2)
    with FakeOpenAI([turn, turn]) as fake:
        _, headers, raw = post(fake, chat("hi", stream=True, usage=True))
        _, _, without_usage = post(fake, chat("hi", stream=True))
    assert headers["Content-Type"] == "text/event-stream"
    payloads = sse_payloads(raw)
    assert payloads[-1] == "[DONE]"
    assert payloads[-2]["choices"] == [] and payloads[-2]["usage"]["total_tokens"] == 18
    deltas = [p["choices"][0]["delta"] for p in payloads[:-2]]
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0] == {
        "index": 0,
        "id": "call_0_0",
        "type": "function",
        "function": {"name": "ls", "arguments": ""},
    }
    assert all("id" not in c and "name" not in c["function"] for c in calls[1:])
    assert "".join(c["function"]["arguments"] for c in calls) == '{"path": "src"}'
    assert len(calls) > 2
    assert payloads[-3]["choices"][0]["finish_reason"] == "tool_calls"
    assert all(p == "[DONE]" or p["choices"] for p in sse_payloads(without_usage))


def test_scripted_errors_carry_openai_bodies_and_retry_after() -> None:
    turns = [
        Turn(error=ScriptError(status=429, retry_after=1.5)),
        Turn(error=ScriptError.context_overflow()),
    ]
    with FakeOpenAI(turns) as fake:
        status, headers, raw = post(fake, chat("a"))
        overflow_status, _, overflow_raw = post(fake, chat("b"))
    assert (status, headers["retry-after"]) == (429, "1.5")
    assert json.loads(raw)["error"]["message"].startswith("Rate limit")
    assert overflow_status == 400
    error = json.loads(overflow_raw)["error"]
    assert error["code"] == "context_length_exceeded"
    assert "maximum context length is 128000 tokens" in error["message"]


def test_turns_then_rules_then_default_then_exhausted() -> None:
    script = Script(
        turns=[Turn(text="first")],
        rules=[
            Rule(last_message_contains="run tests", reply=Turn(text="running"), times=1),
            Rule(any_message_contains="hello", reply=Turn(text="hi there")),
        ],
    )
    with FakeOpenAI(script) as fake:
        replies = [json.loads(post(fake, chat(c))[2]) for c in ("hello", "run tests", "hello")]
        status, _, raw = post(fake, chat("run tests"))
        fake.push(Turn(text="pushed"))
        pushed = json.loads(post(fake, chat("x"))[2])
    texts = [r["choices"][0]["message"]["content"] for r in replies]
    assert texts == ["first", "running", "hi there"]
    assert status == 400 and "script exhausted" in json.loads(raw)["error"]["message"]
    assert pushed["choices"][0]["message"]["content"] == "pushed"
    assert [r.body["messages"][0]["content"] for r in fake.requests] == [
        "hello",
        "run tests",
        "hello",
        "run tests",
        "x",
    ]


def test_responder_picks_replies_from_the_request_and_default_applies() -> None:
    def responder(body: dict[str, Any]) -> Turn | None:
        last = body["messages"][-1]["content"]
        return Turn(text=last.upper()) if last.startswith("echo") else None

    with FakeOpenAI(Script(default=Turn(text="default")), responder=responder) as fake:
        echoed = json.loads(post(fake, chat("echo me"))[2])
        fallback = json.loads(post(fake, chat("other"))[2])
    assert echoed["choices"][0]["message"]["content"] == "ECHO ME"
    assert fallback["choices"][0]["message"]["content"] == "default"


def test_models_endpoint_and_unknown_routes() -> None:
    with FakeOpenAI(Script(models=["a", "b"])) as fake:
        with urllib.request.urlopen(f"{fake.base_url}/models", timeout=10) as response:
            listed = json.loads(response.read())
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{fake.base_url}/nope", timeout=10)
    assert [m["id"] for m in listed["data"]] == ["a", "b"]
    assert missing.value.code == 404


def test_stop_releases_a_hanging_stream_and_joins_threads() -> None:
    before = set(threading.enumerate())
    fake = FakeOpenAI([Turn(text="never finishes", hang_after=1)])
    fake.start()
    received: list[bytes] = []

    def read() -> None:
        body = json.dumps(chat("x", stream=True)).encode()
        req = urllib.request.Request(f"{fake.base_url}/chat/completions", body)
        with urllib.request.urlopen(req, timeout=10) as response:
            received.append(response.readline())
            received.append(response.read())

    reader = threading.Thread(target=read)
    reader.start()
    while not fake.requests:
        threading.Event().wait(0.01)
    fake.stop()
    reader.join(timeout=10)
    assert not reader.is_alive()
    assert json.loads(received[0][len(b"data: ") :])["choices"][0]["delta"]["role"] == "assistant"
    rest = [part for part in received[1].split(b"\n\n") if part.strip()]
    assert set(rest) <= {b": keep-alive"}  # only keep-alives after the first chunk, then EOF
    assert set(threading.enumerate()) <= before


def test_cli_prints_its_base_url_and_serves_the_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "from file"}]}))
    with fake_openai_cli(script) as (base_url, process):
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        req = urllib.request.Request(f"{base_url}/chat/completions", json.dumps(chat("x")).encode())
        with urllib.request.urlopen(req, timeout=10) as response:
            reply = json.loads(response.read())
        assert reply["choices"][0]["message"]["content"] == "from file"
    assert process.returncode == 0

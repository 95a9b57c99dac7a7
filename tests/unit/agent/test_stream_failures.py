"""Provider failures, aborts and cancellation of stream_assistant, through real litellm."""

from __future__ import annotations

import asyncio
import socket

import pytest
from pydantic import TypeAdapter

from pi_lsp.agent.llm import (
    is_auth_error,
    is_context_overflow,
    is_retryable,
    is_retryable_message,
)
from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.stream import AssistantStream, Endpoint, ModelRequest, stream_assistant
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import ScriptError, Turn
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import AssistantMessage
from tests.unit.agent.conftest import MakeFake
from tests.unit.agent.helpers import request, user

ASSISTANT = TypeAdapter(AssistantMessage)


async def events_of(stream: object) -> list[JsonObject]:
    return [event async for event in stream]  # type: ignore[attr-defined]


async def failed_call(
    make_fake: MakeFake, model: ModelInfo, error: ScriptError
) -> tuple[AssistantStream, AssistantMessage, FakeOpenAI]:
    """One call the scripted server fails with ``error``: the stream, its message, the server."""
    fake = make_fake([Turn(error=error)])
    stream = stream_assistant(request(model, fake))
    return stream, await stream.result(), fake


def abortable(
    make_fake: MakeFake, model: ModelInfo, turn: Turn
) -> tuple[AssistantStream, asyncio.Event, FakeOpenAI]:
    """A call the scripted server answers with ``turn``: the stream, its abort event, the server."""
    fake = make_fake([turn])
    abort = asyncio.Event()
    return stream_assistant(request(model, fake, abort=abort)), abort, fake


async def consuming_until_text(stream: AssistantStream) -> asyncio.Task[None]:
    """A task reading ``stream`` to its end, returned once the first text delta arrived."""
    started = asyncio.Event()

    async def consume() -> None:
        async for event in stream:
            if event["type"] == "text_delta":
                started.set()

    task = asyncio.ensure_future(consume())
    await started.wait()
    return task


async def test_rate_limit_is_an_error_message_with_retry_delay(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(error=ScriptError(status=429, retry_after=3))])
    stream = stream_assistant(request(plain_model, fake))
    events = await events_of(stream)
    assert [e["type"] for e in events] == ["error"]  # rejected before any start event
    message = events[0]["error"]
    ASSISTANT.validate_python(message)
    assert message["stopReason"] == "error"
    assert message["content"] == []
    assert message["errorMessage"].startswith("429 Rate limit reached")
    assert is_retryable(message["errorMessage"]) and is_retryable_message(message)
    assert stream.failure is not None
    assert (stream.failure.kind, stream.failure.status, stream.failure.retry_after_ms) == (
        "rate_limit",
        429,
        3000,
    )
    assert len(fake.requests) == 1  # the SDK's own retries are off


async def test_server_error_is_retryable_and_sent_once(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, message, fake = await failed_call(make_fake, plain_model, ScriptError(status=500))
    assert message["errorMessage"].startswith("500 ")
    assert is_retryable_message(message)
    assert stream.failure is not None and stream.failure.kind == "server"
    assert len(fake.requests) == 1


async def test_authentication_failure_says_what_to_set(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, message, _ = await failed_call(make_fake, plain_model, ScriptError(status=401))
    assert message["errorMessage"].startswith(
        "Authentication failed for openai: set OPENAI_API_KEY"
    )
    assert "Incorrect API key" in message["errorMessage"]
    assert is_auth_error(message["errorMessage"])
    assert not is_retryable_message(message)
    assert stream.failure is not None and stream.failure.kind == "auth"


async def test_context_overflow_is_detected_and_not_retried(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    overflow = ScriptError.context_overflow(window=8192, requested=9000)
    stream, message, _ = await failed_call(make_fake, plain_model, overflow)
    assert "maximum context length is 8192 tokens" in message["errorMessage"]
    assert is_context_overflow(message, plain_model.context_window)
    assert not is_retryable_message(message)
    assert stream.failure is not None and stream.failure.kind == "overflow"


async def test_connection_refused_is_a_retryable_error(plain_model: ModelInfo) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = Endpoint(api_base=f"http://127.0.0.1:{port}/v1", api_key="k")
    message = await stream_assistant(
        ModelRequest(model=plain_model, messages=[user("hi")], endpoint=endpoint)
    ).result()
    assert message["stopReason"] == "error"
    assert is_retryable_message(message), message["errorMessage"]


async def test_abort_mid_stream_keeps_partial_and_closes_the_connection(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, abort, fake = abortable(
        make_fake, plain_model, Turn(text="Working on it now", chunk_size=4, hang_after=3)
    )
    seen = []
    async for event in stream:
        seen.append(event["type"])
        if event["type"] == "text_delta" and event["partial"]["content"][0]["text"] == "Work":
            abort.set()
    assert seen[-1] == "error"
    message = stream.message
    ASSISTANT.validate_python(message)
    assert message["stopReason"] == "aborted"
    assert message["content"] == [{"type": "text", "text": "Work"}]
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)
    assert fake.completed_streams == 0


async def test_abort_of_a_slow_stream_closes_it(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, abort, fake = abortable(
        make_fake, plain_model, Turn(text="x" * 400, chunk_size=1, chunk_delay=0.01)
    )
    async for event in stream:
        if event["type"] == "text_delta":
            abort.set()
    assert stream.message["stopReason"] == "aborted"
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)


async def test_abort_before_the_call_sends_nothing(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="never")])
    abort = asyncio.Event()
    abort.set()
    events = await events_of(stream_assistant(request(plain_model, fake, abort=abort)))
    assert [(e["type"], e["reason"]) for e in events] == [("error", "aborted")]
    assert events[0]["error"]["content"] == []
    assert fake.requests == []


async def test_task_cancellation_finalises_as_aborted_and_propagates(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="Hanging reply", hang_after=2)])
    stream = stream_assistant(request(plain_model, fake))
    task = await consuming_until_text(stream)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stream.message["stopReason"] == "aborted"
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)


async def test_closing_the_stream_early_closes_the_connection(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    fake = make_fake([Turn(text="Hanging reply", hang_after=2)])
    async with stream_assistant(request(plain_model, fake)) as stream:
        async for event in stream:
            if event["type"] == "text_delta":
                break
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)
    assert stream.message["stopReason"] == "aborted"
    assert stream.message["content"] == [{"type": "text", "text": "Hang"}]


async def test_abort_while_waiting_for_the_response_headers(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, abort, fake = abortable(make_fake, plain_model, Turn(text="late", response_delay=0.5))

    async def abort_when_sent() -> None:
        while not fake.requests:
            await asyncio.sleep(0.005)
        abort.set()

    setter = asyncio.ensure_future(abort_when_sent())
    events = await events_of(stream)
    await setter
    assert [(e["type"], e["reason"]) for e in events] == [("error", "aborted")]
    assert stream.message["content"] == []
    # The server's first writes after the delay fail.
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)


async def test_outer_cancellation_wins_over_a_pending_abort(
    make_fake: MakeFake, plain_model: ModelInfo
) -> None:
    stream, abort, fake = abortable(
        make_fake, plain_model, Turn(text="Hanging reply", hang_after=2)
    )
    task = await consuming_until_text(stream)
    await asyncio.sleep(0.01)  # let the consumer block on the next read
    abort.set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stream.message["stopReason"] == "aborted"
    assert await asyncio.to_thread(fake.wait_for_disconnects, 1)


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "OPENAI_API_BASE"])
async def test_endpoint_and_key_come_from_litellms_environment_variables(
    make_fake: MakeFake, plain_model: ModelInfo, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    fake = make_fake([Turn(text="from env")])
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    message = await stream_assistant(
        ModelRequest(model=plain_model, messages=[user("hi")])
    ).result()
    assert message["content"] == [{"type": "text", "text": "from env"}]
    assert fake.requests[0].headers["authorization"] == "Bearer env-key"


async def test_a_missing_key_is_an_authentication_error_not_a_server_error(
    make_fake: MakeFake, plain_model: ModelInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = make_fake([Turn(text="unused")])
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    endpoint = Endpoint(api_base=fake.base_url)
    stream = stream_assistant(
        ModelRequest(model=plain_model, messages=[user("hi")], endpoint=endpoint)
    )
    message = await stream.result()
    assert message["errorMessage"].startswith(
        "Authentication failed for openai: set OPENAI_API_KEY ("
    )
    assert "500" not in message["errorMessage"]
    assert is_auth_error(message["errorMessage"]) and not is_retryable_message(message)
    assert stream.failure is not None and stream.failure.kind == "auth"
    assert fake.requests == []

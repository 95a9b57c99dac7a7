"""Calling a model through litellm: a streamed reply as pi's events, and one-shot text.

:func:`stream_assistant` returns an :class:`AssistantStream`: iterate it for pi's sub-events (see
:mod:`pi_lsp.agent.assistant_builder`); the last event is ``done`` or ``error`` and carries the
final assistant message, also left on :attr:`AssistantStream.message`. Provider failures never
raise: they end the stream with an ``error`` event whose message has ``stopReason: "error"`` and
pi's ``errorMessage`` (details on :attr:`AssistantStream.failure`). Setting ``request.abort`` (or
cancelling the consuming task) stops reading, closes the HTTP stream and finalises the partial
message with ``stopReason: "aborted"``; task cancellation still propagates after that.

Credentials and endpoints come from the environment variables litellm reads (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY``…); ``api_base``/``api_key`` are sent only when a setting
provides them. The openai SDK's own retries are off (``max_retries=0``): the loop retries, as pi.

For the compaction and branch summarizers, :func:`complete_text` sends a system prompt and one
user message, streams the reply (so an abort closes the connection) and returns its text (text
blocks joined by newlines, as pi's summarizer joins them), usage and stop reason. A failed or
aborted call raises :class:`CompletionError`; the caller words it (pi: ``Summarization failed:
…``). :class:`LitellmTextModel` wraps it in the shape the compaction summarizer asks for
(``complete(system=, prompt=, max_tokens=, reasoning=)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from pi_lsp.agent.assistant_builder import AssistantBuilder, InvalidArguments
from pi_lsp.agent.events import StreamEvent
from pi_lsp.agent.llm import ProviderFailure, describe_provider_error, load_litellm
from pi_lsp.agent.models import THINKING_LEVELS, ModelInfo, ThinkingLevel, completion_params
from pi_lsp.agent.provider_messages import ToolSpec, to_provider_messages, tool_definitions
from pi_lsp.session.messages import (
    AssistantMessage,
    ContextMessage,
    TextContent,
    Usage,
    UserMessage,
)

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True, kw_only=True, slots=True)
class Endpoint:
    """Explicit connection settings; ``None`` leaves it to litellm's environment variables."""

    api_base: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    """Seconds for the whole request (litellm's default otherwise)."""
    max_retries: int = 0
    """Retries litellm makes inside one request (the agent retries whole turns itself)."""
    extra_headers: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelRequest:
    """Everything one model call needs."""

    model: ModelInfo
    messages: Sequence[ContextMessage]
    """pi context messages (any role; summaries and bash executions are converted here)."""
    system_prompt: str | None = None
    tools: Sequence[ToolSpec] = ()
    thinking_level: ThinkingLevel = "off"
    """Clamped to what the model offers."""
    max_tokens: int | None = None
    """Output cap; ``min(model limit, 32000)`` when unset, as pi."""
    temperature: float | None = None
    thinking_budgets: Mapping[str, int] | None = None
    """Anthropic budget overrides per level (pi's ``thinkingBudgets`` setting)."""
    block_images: bool = False
    endpoint: Endpoint = field(default_factory=Endpoint)
    abort: asyncio.Event | None = None


class _Aborted(Exception):
    """The abort event fired while waiting on the provider."""


class AssistantStream:
    """Async iterator of pi's assistant-message events for one call; see the module docstring."""

    def __init__(self, request: ModelRequest) -> None:
        self.request = request
        self.builder = AssistantBuilder(request.model)
        self.failure: ProviderFailure | None = None
        """Set when the call failed (``stopReason: "error"``)."""
        self._events: AsyncGenerator[StreamEvent, None] = self._run()
        self._abort_waiter: asyncio.Future[Any] | None = None
        self._reader: asyncio.Task[Any] | None = None
        """The task awaiting the provider right now; the abort callback cancels it."""
        self._abort_cancelled = False

    @property
    def message(self) -> AssistantMessage:
        """The assistant message: partial while streaming, final after the last event."""
        return self.builder.message

    @property
    def invalid_arguments(self) -> Mapping[str, InvalidArguments]:
        """Tool calls (by id) whose arguments were not a JSON object (``arguments`` is ``{}``)."""
        return self.builder.invalid_arguments

    def __aiter__(self) -> AssistantStream:
        return self

    async def __anext__(self) -> StreamEvent:
        return await self._events.__anext__()

    async def __aenter__(self) -> AssistantStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop early: close the HTTP stream; an unfinished message ends as ``aborted``."""
        await self._events.aclose()

    async def result(self) -> AssistantMessage:
        """Consume the remaining events and return the final message."""
        async for _ in self:
            pass
        return self.message

    async def _run(self) -> AsyncGenerator[StreamEvent, None]:
        abort, ended = self.request.abort, False
        if abort is not None:
            self._abort_waiter = asyncio.ensure_future(abort.wait())
            self._abort_waiter.add_done_callback(self._on_abort)
        try:
            async with contextlib.aclosing(self._call()) as events:
                async for event in events:
                    if event["type"] in ("done", "error"):
                        ended = True
                        if self._abort_waiter is not None:
                            self._abort_waiter.cancel()  # consumers often stop at this event
                    yield event
        finally:
            if self._abort_waiter is not None:
                self._abort_waiter.cancel()
            if not ended:  # task cancelled, or the consumer closed the stream early
                self.builder.fail(None)

    async def _call(self) -> AsyncGenerator[StreamEvent, None]:
        builder = self.builder
        try:
            litellm = await self._until_abort(load_litellm())
            response = await self._until_abort(litellm.acompletion(**_call_arguments(self.request)))
        except _Aborted:
            for event in builder.fail(None):
                yield event
            return
        except Exception as exc:
            for event in self._failed(exc):
                yield event
            return
        yield builder.start()
        async with contextlib.aclosing(self._read(response)) as events:
            async for event in events:
                yield event

    async def _read(self, response: Any) -> AsyncGenerator[StreamEvent, None]:
        builder, chunks, finished = self.builder, response.__aiter__(), False
        try:
            while True:
                try:
                    chunk = await self._until_abort(chunks.__anext__())
                except StopAsyncIteration:
                    break
                for event in builder.feed(chunk):
                    yield event
            finished = True
        except _Aborted:
            events = builder.fail(None)
        except Exception as exc:
            events = self._failed(exc)
        else:
            events = builder.finish()
        finally:
            if not finished:
                await _close(response)
        for event in events:
            yield event

    def _failed(self, exc: Exception) -> list[StreamEvent]:
        self.failure = describe_provider_error(exc, self.request.model.ref.provider)
        if self.failure.status is None:
            logger.warning("model call failed without an HTTP status: %r", exc, exc_info=exc)
        return self.builder.fail(self.failure)

    async def _until_abort(self, awaitable: Awaitable[_T]) -> _T:
        """Await ``awaitable``; if the abort event fires meanwhile, cancel it, raise ``_Aborted``.

        Like ``asyncio.timeout``: the abort callback cancels the awaiting task itself (no task per
        chunk, which measurably slowed every read), and ``uncancel`` tells that cancellation
        apart from one requested by anybody else, which still propagates.
        """
        abort = self.request.abort
        if abort is None:
            return await awaitable
        if abort.is_set():
            _discard(awaitable)
            raise _Aborted
        reader = asyncio.current_task()
        self._reader = reader
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self._abort_cancelled and reader is not None and reader.uncancel() == 0:
                raise _Aborted from None
            raise
        finally:
            self._reader = None

    def _on_abort(self, waiter: asyncio.Future[Any]) -> None:
        reader = self._reader
        if waiter.cancelled() or reader is None or self._abort_cancelled:
            return
        if reader.cancelling():
            return  # already being cancelled: a second cancel would interrupt httpx's own cleanup
        self._abort_cancelled = True
        reader.cancel()


def stream_assistant(request: ModelRequest) -> AssistantStream:
    """Start one streamed call (lazily: nothing is sent until the first event is awaited)."""
    return AssistantStream(request)


def _call_arguments(request: ModelRequest) -> dict[str, Any]:
    """Keyword arguments for ``litellm.acompletion``."""
    model = request.model
    arguments: dict[str, Any] = {
        "model": model.ref.litellm_model,
        "messages": to_provider_messages(
            request.messages,
            model,
            system_prompt=request.system_prompt,
            block_images=request.block_images,
        ),
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_retries": request.endpoint.max_retries,
        **completion_params(
            model,
            request.thinking_level,
            max_tokens=request.max_tokens,
            budgets=request.thinking_budgets,
        ),
    }
    if request.tools:
        arguments["tools"] = tool_definitions(request.tools)
    if request.temperature is not None:
        arguments["temperature"] = request.temperature
    endpoint = request.endpoint
    optional = {
        "api_base": endpoint.api_base,
        "api_key": endpoint.api_key,
        "timeout": endpoint.timeout,
        "extra_headers": dict(endpoint.extra_headers) if endpoint.extra_headers else None,
    }
    arguments.update({key: value for key, value in optional.items() if value is not None})
    return arguments


async def _close(response: Any) -> None:
    """Close litellm's stream wrapper, which closes the HTTP response."""
    close = getattr(response, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # closing a half-read stream may itself fail; the socket is gone either way
        logger.debug("closing the model stream failed", exc_info=True)


def _discard(awaitable: Awaitable[Any]) -> None:
    """Close a coroutine that will never be awaited (avoids the 'never awaited' warning)."""
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()


@dataclass(frozen=True, kw_only=True, slots=True)
class TextCompletion:
    """A successful one-shot reply."""

    text: str
    usage: Usage
    """pi's usage object (tokens and cost)."""
    stop_reason: str
    """``stop`` or ``length`` (a truncated summary is still returned)."""
    message: AssistantMessage
    """The whole assistant message, for callers that store or inspect it."""


class CompletionError(Exception):
    """The model call failed (``stop_reason == "error"``) or was aborted (``"aborted"``)."""

    def __init__(self, message: AssistantMessage, failure: ProviderFailure | None) -> None:
        super().__init__(str(message.get("errorMessage") or "Unknown error"))
        self.message = message
        self.failure = failure
        self.stop_reason: str = str(message.get("stopReason"))


async def complete_text(
    model: ModelInfo,
    *,
    system_prompt: str,
    prompt: str,
    max_tokens: int,
    reasoning: ThinkingLevel = "off",
    endpoint: Endpoint | None = None,
    abort: asyncio.Event | None = None,
) -> TextCompletion:
    """Ask ``model`` once; ``reasoning`` is clamped to the model (``off`` without reasoning)."""
    request = ModelRequest(
        model=model,
        messages=[
            UserMessage(
                role="user",
                content=[TextContent(type="text", text=prompt)],
                timestamp=int(time.time() * 1000),
            )
        ],
        system_prompt=system_prompt,
        thinking_level=reasoning,
        max_tokens=max_tokens,
        endpoint=endpoint or Endpoint(),
        abort=abort,
    )
    stream = stream_assistant(request)
    message = await stream.result()
    if message["stopReason"] in ("error", "aborted"):
        raise CompletionError(message, stream.failure)
    text = "\n".join(b["text"] for b in message["content"] if b["type"] == "text")
    return TextCompletion(
        text=text, usage=message["usage"], stop_reason=message["stopReason"], message=message
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class LitellmTextModel:
    """A resolved model as the summarizers use it: one-shot text, raising on failure."""

    model: ModelInfo
    endpoint: Endpoint = field(default_factory=Endpoint)
    abort: asyncio.Event | None = None

    @property
    def supports_reasoning(self) -> bool:
        """Whether the model takes reasoning settings."""
        return self.model.reasoning

    @property
    def context_window(self) -> int | None:
        """The model's context window (litellm's data, a setting, or the default)."""
        return self.model.context_window

    async def complete(
        self, *, system: str, prompt: str, max_tokens: int, reasoning: str | None
    ) -> str:
        """The reply's text; raises :class:`CompletionError` when the call fails or is aborted."""
        level: ThinkingLevel = next((lvl for lvl in THINKING_LEVELS if lvl == reasoning), "off")
        result = await complete_text(
            self.model,
            system_prompt=system,
            prompt=prompt,
            max_tokens=max_tokens,
            reasoning=level,
            endpoint=self.endpoint,
            abort=self.abort,
        )
        return result.text

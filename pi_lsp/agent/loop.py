"""The turn loop: model call, tool calls, steering and follow-ups (pi's ``agent-loop.ts``, §11).

Pure orchestration: the model call, the tools, the event sink and the queues are injected, so the
loop runs the same against litellm, a scripted double or an editor. It emits pi's events in pi's
order: ``agent_start``, ``turn_start``, the prompt messages, then per turn the streamed assistant
message, the tool executions (announced first, run concurrently, finished in call order) and
``turn_end``; ``agent_end`` last. A reply that failed or was aborted ends the run.

Invariants the rest of pi_lsp relies on: every tool call of an assistant message gets exactly one
tool result (unknown tool, bad arguments, abort, skipped by steering: each is an error result),
and ``message_end`` is emitted for every message, which is where the caller persists it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pi_lsp.agent.assistant_builder import InvalidArguments
from pi_lsp.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    StreamEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
    TurnEnd,
    TurnStart,
)
from pi_lsp.agent.permissions import unless_cancelled
from pi_lsp.edits import tool_scope
from pi_lsp.session.messages import AssistantMessage, ContextMessage, ToolCall, ToolResultMessage
from pi_lsp.tools import Tool, ToolError, ToolResult

SKIPPED = "Skipped due to queued user message."
TRUNCATED_CALL = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its '
    "arguments may be truncated. Re-issue the tool call with complete arguments."
)


class ReplyStream(Protocol):
    """What a model call returns: pi's assistant sub-events, then the final message."""

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        """The sub-events: ``start``, deltas, then ``done`` or ``error``."""
        ...

    @property
    def message(self) -> AssistantMessage:
        """The assistant message: partial while streaming, final at the end."""
        ...

    @property
    def invalid_arguments(self) -> Mapping[str, InvalidArguments]:
        """Tool calls (by id) whose arguments could not be parsed."""
        ...


StreamFn = Callable[[list[ContextMessage], asyncio.Event], ReplyStream]
"""Starts a model call over the context messages; stops when the event is set."""

Emit = Callable[[AgentEvent], None]
"""Receives every event; persisting happens here on ``message_end``."""

BeforeTool = Callable[[str, str, Mapping[str, Any]], Awaitable[str | None]]
"""``(tool name, call id, arguments)`` → None to run the call, or why it may not run."""


@dataclass(frozen=True, slots=True)
class LoopHooks:
    """What the loop needs from its surroundings."""

    stream: StreamFn
    tools: Mapping[str, Tool[Any]]
    emit: Emit
    steering: Callable[[], Sequence[ContextMessage]]
    """Queued steering messages (taken off the queue)."""
    follow_up: Callable[[], Sequence[ContextMessage]]
    """Queued follow-up messages, asked for only when the agent would stop."""
    before_tool: BeforeTool | None = None
    """Asked before each call runs; a returned text refuses the call (it becomes the result)."""


def now_ms() -> int:
    """Epoch milliseconds."""
    return int(time.time() * 1000)


async def run_loop(
    messages: list[ContextMessage],
    prompts: Sequence[ContextMessage],
    hooks: LoopHooks,
    abort: asyncio.Event,
) -> list[ContextMessage]:
    """Run until the agent stops; ``messages`` (the context) grows in place. Returns new messages.

    ``prompts`` may be empty to continue from the context as it is (after a retry or compaction).
    """
    emit = hooks.emit
    added: list[ContextMessage] = []
    emit(AgentStart(type="agent_start"))
    emit(TurnStart(type="turn_start"))
    _deliver(list(prompts), messages, added, emit)
    pending = hooks.steering()
    first = True
    while True:
        more_tools = True
        while more_tools or pending:
            if not first:
                emit(TurnStart(type="turn_start"))
            first = False
            _deliver(pending, messages, added, emit)
            pending = []
            reply, invalid = await _stream_reply(messages, hooks, abort)
            messages.append(reply)
            added.append(reply)
            if reply["stopReason"] in ("error", "aborted"):
                emit(TurnEnd(type="turn_end", message=reply, toolResults=[]))
                emit(AgentEnd(type="agent_end", messages=added))
                return added
            results, pending = await _run_tool_calls(reply, invalid, hooks, abort)
            messages.extend(results)
            added.extend(results)
            more_tools = bool(results)
            emit(TurnEnd(type="turn_end", message=reply, toolResults=results))
            if abort.is_set():
                emit(AgentEnd(type="agent_end", messages=added))
                return added
            if not pending:
                pending = hooks.steering()
        pending = hooks.follow_up()
        if not pending:
            break
    emit(AgentEnd(type="agent_end", messages=added))
    return added


def _deliver(
    queued: Sequence[ContextMessage],
    messages: list[ContextMessage],
    added: list[ContextMessage],
    emit: Emit,
) -> None:
    for message in queued:
        emit(MessageStart(type="message_start", message=message))
        emit(MessageEnd(type="message_end", message=message))
        messages.append(message)
        added.append(message)


async def _stream_reply(
    messages: list[ContextMessage], hooks: LoopHooks, abort: asyncio.Event
) -> tuple[AssistantMessage, Mapping[str, InvalidArguments]]:
    """Stream one assistant message, emitting ``message_start/update/end``."""
    emit = hooks.emit
    stream = hooks.stream(list(messages), abort)
    started = False
    try:
        async for sub in stream:
            if sub["type"] == "start":
                started = True
                emit(MessageStart(type="message_start", message=stream.message))
            elif sub["type"] == "done" or sub["type"] == "error":
                break
            elif started:
                # a literal, not MessageUpdate(...): this runs per streamed chunk (0.1 µs vs 0.4)
                update: MessageUpdate = {
                    "type": "message_update",
                    "message": stream.message,
                    "assistantMessageEvent": sub,
                }
                emit(update)
    except Exception as exc:  # a bug below must not lose the turn: record it as a failed reply
        message = stream.message
        message["stopReason"] = "error"
        message["errorMessage"] = f"Internal error while streaming: {exc!r}"
    reply = stream.message
    if not started:
        emit(MessageStart(type="message_start", message=reply))
    emit(MessageEnd(type="message_end", message=reply))
    return reply, stream.invalid_arguments


@dataclass(slots=True)
class _Call:
    block: ToolCall
    tool: Tool[Any] | None = None
    failure: str | None = None
    cancel: asyncio.Event | None = None
    task: asyncio.Task[ToolResult] | None = None


async def _run_tool_calls(
    reply: AssistantMessage,
    invalid: Mapping[str, InvalidArguments],
    hooks: LoopHooks,
    abort: asyncio.Event,
) -> tuple[list[ToolResultMessage], Sequence[ContextMessage]]:
    """Execute the reply's tool calls; returns their results (call order) and steering."""
    blocks = [b for b in reply["content"] if b["type"] == "toolCall"]
    calls = [_announce(block, reply, invalid, hooks) for block in blocks]
    watcher = asyncio.ensure_future(_propagate_abort(abort, calls))
    try:
        for call in calls:
            if call.failure is None:
                call.task = asyncio.ensure_future(_execute(call, hooks))
        return await _collect(calls, hooks)
    finally:
        watcher.cancel()
        for call in calls:
            if call.task is not None and not call.task.done():
                call.task.cancel()
                with contextlib.suppress(BaseException):
                    await call.task


def _announce(
    block: ToolCall,
    reply: AssistantMessage,
    invalid: Mapping[str, InvalidArguments],
    hooks: LoopHooks,
) -> _Call:
    """``tool_execution_start``; a call that cannot run gets its ``tool_execution_end`` now."""
    name, call_id = str(block.get("name")), str(block.get("id"))
    args = block.get("arguments") if isinstance(block.get("arguments"), dict) else {}
    hooks.emit(
        ToolExecutionStart(
            type="tool_execution_start", toolCallId=call_id, toolName=name, args=args
        )
    )
    call = _Call(block, tool=hooks.tools.get(name), cancel=asyncio.Event())
    if reply["stopReason"] == "length":
        call.failure = TRUNCATED_CALL.format(name=name)
    elif call.tool is None:
        call.failure = f"Tool {name} not found"
    elif call_id in invalid:
        bad = invalid[call_id]
        call.failure = (
            f'Invalid arguments for tool "{name}": {bad.error}. Received: {bad.raw[:2000]}'
        )
    else:
        try:
            call.tool.validate(args)
        except ToolError as exc:
            call.failure = exc.message
    if call.failure is not None:
        result: ToolOutput = {"content": [{"type": "text", "text": call.failure}], "details": {}}
        hooks.emit(
            ToolExecutionEnd(
                type="tool_execution_end",
                toolCallId=call_id,
                toolName=name,
                result=result,
                isError=True,
            )
        )
    return call


async def _propagate_abort(abort: asyncio.Event, calls: list[_Call]) -> None:
    await abort.wait()
    for call in calls:
        if call.cancel is not None:
            call.cancel.set()


async def _execute(call: _Call, hooks: LoopHooks) -> ToolResult:
    """Run one tool; every failure becomes an error result (the loop never crashes on a tool)."""
    assert call.tool is not None
    block = call.block
    args = block.get("arguments") or {}
    emit = hooks.emit
    if hooks.before_tool is not None:
        check = hooks.before_tool(str(block.get("name")), str(block.get("id")), args)
        try:
            refusal = await unless_cancelled(check, call.cancel)
        except Exception as exc:  # a failed check refuses this call; the turn goes on
            refusal = f"The permission check failed ({type(exc).__name__}: {exc}); not run."
        if refusal is not None:
            return ToolResult.of_text(refusal, {}, is_error=True)

    def update(partial: ToolResult) -> None:
        emit(
            ToolExecutionUpdate(
                type="tool_execution_update",
                toolCallId=block["id"],
                toolName=block["name"],
                args=args,
                partialResult=_result_payload(partial),
            )
        )

    try:
        with tool_scope(call.tool.name):  # names the tool in editor change annotations
            return await call.tool.execute(args, cancel=call.cancel, on_update=update)
    except ToolError as exc:
        return ToolResult.of_text(exc.message, {}, is_error=True)
    except Exception as exc:
        return ToolResult.of_text(f"{type(exc).__name__}: {exc}", {}, is_error=True)


async def _collect(
    calls: list[_Call], hooks: LoopHooks
) -> tuple[list[ToolResultMessage], Sequence[ContextMessage]]:
    """Finish the calls in call order; queued steering skips the ones still running."""
    results: list[ToolResultMessage] = []
    steering: Sequence[ContextMessage] = []
    for call in calls:
        block = call.block
        if call.failure is not None:
            result = ToolResult.of_text(call.failure, {}, is_error=True)
        elif steering and call.task is not None and not call.task.done():
            assert call.cancel is not None
            call.cancel.set()
            call.task.cancel()
            with contextlib.suppress(BaseException):
                await call.task
            result = ToolResult.of_text(SKIPPED, {}, is_error=True)
            _emit_end(hooks.emit, block, result)
        else:
            assert call.task is not None
            result = await call.task
            _emit_end(hooks.emit, block, result)
            if not steering:
                steering = hooks.steering()
        message = tool_result_message(block, result)
        hooks.emit(MessageStart(type="message_start", message=message))
        hooks.emit(MessageEnd(type="message_end", message=message))
        results.append(message)
    return results, steering


def _emit_end(emit: Emit, block: ToolCall, result: ToolResult) -> None:
    emit(
        ToolExecutionEnd(
            type="tool_execution_end",
            toolCallId=block["id"],
            toolName=block["name"],
            result=_result_payload(result),
            isError=result.is_error,
        )
    )


def _result_payload(result: ToolResult) -> ToolOutput:
    payload: ToolOutput = {"content": list(result.content)}
    if result.details is not None:
        payload["details"] = result.details
    return payload


def tool_result_message(block: ToolCall, result: ToolResult) -> ToolResultMessage:
    """pi's ``toolResult`` message for a call (key order as pi writes it)."""
    message = ToolResultMessage(
        role="toolResult",
        toolCallId=block["id"],
        toolName=block["name"],
        content=list(result.content),
        details=result.details,
        isError=result.is_error,
        timestamp=now_ms(),
    )
    if result.details is None:
        del message["details"]  # pi writes no key for a result without details
    return message

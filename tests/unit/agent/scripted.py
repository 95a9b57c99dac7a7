"""A scripted model double for loop tests: replies are built in pi's shape, streamed as pi does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import Field

from pi_lsp.agent.assistant_builder import InvalidArguments
from pi_lsp.agent.loop import BeforeTool, LoopHooks, run_loop
from pi_lsp.devtools.builders import usage, user
from pi_lsp.tools.base import Tool, ToolInvocation, ToolParams, ToolResult


@dataclass
class Reply:
    """One scripted reply: text and tool calls ``(name, args)``; ``hang`` waits for abort."""

    text: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    stop: str | None = None
    error: str | None = None
    hang: bool = False


class ScriptedStream:
    """Implements the loop's ``ReplyStream`` for one scripted reply."""

    def __init__(self, reply: Reply, abort: asyncio.Event, index: int) -> None:
        self.reply = reply
        self.abort = abort
        self.index = index
        self.invalid_arguments: dict[str, InvalidArguments] = {}
        self.message: dict[str, Any] = {
            "role": "assistant",
            "content": [],
            "api": "openai-completions",
            "provider": "openai",
            "model": "scripted",
            "usage": usage(100, 10),
            "stopReason": "stop",
            "timestamp": 1,
        }

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._events()

    async def _events(self) -> AsyncIterator[dict[str, Any]]:
        message = self.message
        if self.reply.error:
            message["stopReason"], message["errorMessage"] = "error", self.reply.error
            yield {"type": "error", "reason": "error", "error": message}
            return
        yield {"type": "start", "partial": message}
        if self.reply.text:
            message["content"].append({"type": "text", "text": ""})
            for piece in (self.reply.text[:3], self.reply.text[3:]):
                await asyncio.sleep(0)
                message["content"][0]["text"] += piece
                yield {"type": "text_delta", "contentIndex": 0, "delta": piece, "partial": message}
        if self.reply.hang:
            await self.abort.wait()
        if self.abort.is_set():
            message["stopReason"], message["errorMessage"] = "aborted", "Request was aborted"
            yield {"type": "error", "reason": "aborted", "error": message}
            return
        for number, (name, args) in enumerate(self.reply.calls):
            call_id = f"call_{self.index}_{number}"
            if isinstance(args, str):  # unparsable arguments
                self.invalid_arguments[call_id] = InvalidArguments(raw=args, error="not JSON")
                args = {}
            message["content"].append(
                {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
            )
        message["stopReason"] = self.reply.stop or ("toolUse" if self.reply.calls else "stop")
        yield {"type": "done", "reason": message["stopReason"], "message": message}


class Script:
    """Serves replies in order and records the context each call saw."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]], abort: asyncio.Event) -> ScriptedStream:
        self.seen.append(json.loads(json.dumps(messages)))
        reply = self.replies.pop(0) if self.replies else Reply(text="(script exhausted)")
        return ScriptedStream(reply, abort, len(self.seen))


class SleepParams(ToolParams):
    seconds: float = Field(description="how long")
    label: str = Field(default="", description="echoed back")


class SleepTool(Tool[SleepParams]):
    """Sleeps, reporting progress; stops early (with an error) when cancelled."""

    name = "sleep"
    summary = "Sleep"
    description = "Sleep for a while."
    params_model = SleepParams
    finished: ClassVar[list[str]] = []

    async def run(self, params: SleepParams, call: ToolInvocation) -> ToolResult:
        if call.on_update is not None:
            call.on_update(ToolResult.of_text(f"sleeping {params.label}"))
        assert call.cancel is not None
        try:
            await asyncio.wait_for(call.cancel.wait(), params.seconds)
        except TimeoutError:
            SleepTool.finished.append(params.label)
            return ToolResult.of_text(f"slept {params.label}")
        return ToolResult.of_text(f"interrupted {params.label}", {}, is_error=True)


def recorder() -> tuple[list[dict[str, Any]], Callable[[dict[str, Any]], None]]:
    events: list[dict[str, Any]] = []
    return events, events.append


def kinds(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        name = e["type"]
        if name in ("message_start", "message_end"):
            name += f":{e['message']['role']}"
        out.append(name)
    return out


def tool_map(*tools: Tool[Any]) -> Mapping[str, Tool[Any]]:
    return {t.name: t for t in tools}


async def run_checked(
    script: Script, tools: Mapping[str, Tool[Any]], before_tool: BeforeTool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One prompt ("go") through the loop with ``before_tool`` checking every call: the
    messages the run added and the events it emitted."""
    events, emit = recorder()
    hooks = LoopHooks(
        stream=script,
        tools=tools,
        emit=emit,
        steering=list,
        follow_up=list,
        before_tool=before_tool,
    )
    messages: list[dict[str, Any]] = []
    await run_loop(messages, [user("go", ts=1)], hooks, asyncio.Event())
    return messages, events

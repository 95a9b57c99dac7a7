"""Builders for compaction tests: messages, sessions, and a recording SummaryModel double."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.compaction import SummaryRequest
from pi_lsp.session import SessionStore

USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(
    text: str = "ok",
    *,
    calls: list[dict[str, Any]] | None = None,
    stop: str = "stop",
    total: int = 15,
    model: str = "claude-sonnet-4-5",
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", **call} for call in calls or []]
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": {**USAGE, "totalTokens": total},
        "stopReason": stop,
        "timestamp": 2,
    }


def call(name: str, call_id: str = "c1", **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def tool_result(text: str, call_id: str = "c1", name: str = "read") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 3,
    }


def counting_uuids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"{next(counter):08x}-0000-4000-8000-000000000000"


class Clock:
    """Seconds advancing one millisecond per call, so entry timestamps differ."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def memory_store() -> SessionStore:
    return SessionStore.in_memory("/work/project", clock=Clock(), uuids=counting_uuids())


def add_turn(store: SessionStore, prompt: str, reply: str = "done", *, words: int = 0) -> str:
    """A user message and an assistant reply (``words`` pads both); returns the user entry id."""
    pad = " lorem" * words
    user_id = store.append_message(user(prompt + pad))
    store.append_message(assistant(reply + pad))
    return user_id


@dataclass
class RecordingModel:
    """A SummaryModel double: records every request and answers from a script.

    ``answer(request)`` returns the summary text (default: a numbered ``SUMMARY n``); it may
    raise to simulate a failure. ``gate``, when set, makes every call wait for it, so tests
    can observe concurrency and cancel in the middle of a call.
    """

    supports_reasoning: bool = False
    context_window: int | None = 200_000
    answer: Callable[[SummaryRequest], str] | None = None
    gate: asyncio.Event | None = None
    requests: list[SummaryRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    async def complete(
        self, *, system: str, prompt: str, max_tokens: int, reasoning: str | None
    ) -> str:
        request = SummaryRequest(
            system=system, prompt=prompt, max_tokens=max_tokens, reasoning=reasoning
        )
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            else:
                await asyncio.sleep(0)
            if self.answer is not None:
                return self.answer(request)
            return f"SUMMARY {len(self.requests)}"
        finally:
            self.in_flight -= 1

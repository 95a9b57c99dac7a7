"""Builders of pi's messages, usage, clocks and ids: the one set tests, benchmarks and the demo use.

Messages are plain JSON in pi's shape (what the store appends and the loop passes around).
Defaults are fixed values (timestamps, a 15-token usage), so a test states only what it is
about; every default can be overridden.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from pi_lsp.session.jsonl import JsonObject


def usage(
    input: int = 10, output: int = 5, *, total: int | None = None, cache_read: int = 0
) -> JsonObject:
    """pi's ``usage`` object (cost zero); ``total`` defaults to the sum."""
    return {
        "input": input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": 0,
        "totalTokens": input + output + cache_read if total is None else total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


USAGE = usage()
"""A reply's usage: 10 input, 5 output, 15 in total."""


def user(text: str, ts: int = 1) -> JsonObject:
    """A user message with one text block."""
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(name: str, call_id: str = "c1", **arguments: Any) -> JsonObject:
    """A tool call's fields (``id``, ``name``, ``arguments``), for :func:`assistant`'s ``calls``."""
    return {"id": call_id, "name": name, "arguments": arguments}


def assistant(
    text: str = "ok",
    *,
    calls: list[JsonObject] | None = None,
    stop: str = "stop",
    total: int = 15,
    model: str = "claude-sonnet-4-5",
    ts: int = 2,
    usage_of: JsonObject | None = None,
) -> JsonObject:
    """An assistant reply: a text block (unless empty), then the tool calls."""
    content: list[JsonObject] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", **c} for c in calls or []]
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": usage_of if usage_of is not None else {**USAGE, "totalTokens": total},
        "stopReason": stop,
        "timestamp": ts,
    }


def tool_result(call_id: str, text: str, name: str = "read", ts: int = 3) -> JsonObject:
    """A successful tool result with one text block."""
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": ts,
    }


class Clock:
    """Seconds that advance one millisecond per call, so entry timestamps differ."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        """The next time."""
        self.now += 0.001
        return self.now


def counting_uuids() -> Callable[[], str]:
    """Deterministic UUID strings whose first 8 characters (pi's entry ids) are unique."""
    counter = itertools.count(1)
    return lambda: f"{next(counter):08x}-0000-4000-8000-000000000000"

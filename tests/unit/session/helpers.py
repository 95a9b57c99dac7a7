"""Message builders and a controlled clock/id source for session tests."""

from __future__ import annotations

import itertools
from typing import Any

USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def user(text: str, ts: int = 1_700_000_000_000) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(
    text: str = "ok",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    stop: str = "stop",
    model: str = "claude-sonnet-4-5",
    total: int = 15,
    ts: int = 1_700_000_000_500,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for call in tool_calls or []:
        content.append({"type": "toolCall", **call})
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": {**USAGE, "totalTokens": total},
        "stopReason": stop,
        "timestamp": ts,
    }


def tool_result(call_id: str, text: str, name: str = "read") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 1_700_000_001_000,
    }


class Clock:
    """Seconds that advance by one millisecond per call (so timestamps differ)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def counting_uuids() -> Any:
    """Deterministic UUID strings whose first 8 characters are unique."""
    counter = itertools.count(1)
    return lambda: f"{next(counter):08x}-0000-4000-8000-000000000000"

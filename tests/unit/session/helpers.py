"""Message builders and a controlled clock/id source for session tests (pi_lsp.devtools.builders
with these tests' timestamps)."""

from __future__ import annotations

from typing import Any

from pi_lsp.devtools import builders
from pi_lsp.devtools.builders import USAGE, Clock, counting_uuids

__all__ = ["USAGE", "Clock", "assistant", "counting_uuids", "tool_result", "user"]


def user(text: str, ts: int = 1_700_000_000_000) -> dict[str, Any]:
    return builders.user(text, ts)


def assistant(
    text: str = "ok",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    stop: str = "stop",
    model: str = "claude-sonnet-4-5",
    total: int = 15,
    ts: int = 1_700_000_000_500,
) -> dict[str, Any]:
    return builders.assistant(text, calls=tool_calls, stop=stop, total=total, model=model, ts=ts)


def tool_result(call_id: str, text: str, name: str = "read") -> dict[str, Any]:
    return builders.tool_result(call_id, text, name, ts=1_700_000_001_000)

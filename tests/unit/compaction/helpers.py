"""Compaction test helpers: an in-memory session, a turn, and a recording SummaryModel double."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.compaction import SummaryRequest
from pi_lsp.devtools.builders import assistant, fresh_store, user
from pi_lsp.session import SessionStore

ENTRY_HEAD = ["type", "id", "parentId", "timestamp"]
"""The keys every entry line starts with, in pi's order."""


def written_line(store: SessionStore, index: int = -1) -> dict[str, Any]:
    """The JSON object of one line of the store's file (the last by default)."""
    assert store.path is not None
    line: dict[str, Any] = json.loads(store.path.read_text().splitlines()[index])
    return line


def entry_keys(*keys: str) -> list[str]:
    """The keys of an entry line in pi's order: :data:`ENTRY_HEAD`, then ``keys``."""
    return [*ENTRY_HEAD, *keys]


def memory_store() -> SessionStore:
    return fresh_store("/work/project")


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

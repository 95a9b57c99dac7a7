"""What the ACP face keeps per open session: its file system, update mapper and turn outcome.

The daemon's :class:`~pi_lsp.daemon.live_session.LiveSession` owns the session; this only
follows its events to know how the current ``session/prompt`` ended (the last assistant
message, or the turn's failure) and what the client was last told (title, cost).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from acp.schema import Cost, SessionInfoUpdate, Usage, UsageUpdate

from pi_lsp.acp.client_fs import ClientFileSystem
from pi_lsp.acp.updates import LiveUpdates
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.session.jsonl import JsonObject


def _cost(message: JsonObject) -> float:
    usage = message.get("usage")
    cost = usage.get("cost") if isinstance(usage, dict) else None
    total = cost.get("total") if isinstance(cost, dict) else None
    return float(total) if isinstance(total, int | float) else 0.0


@dataclass
class TurnOutcome:
    """How the running prompt is going."""

    assistant: list[JsonObject] = field(default_factory=list)
    """Assistant messages of this prompt, in order."""
    failure: str | None = None
    cancelled: bool = False

    def usage(self) -> Usage | None:
        """Tokens of this prompt's model calls."""
        if not self.assistant:
            return None
        totals = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        for message in self.assistant:
            usage = message.get("usage") or {}
            for key in totals:
                value = usage.get(key)
                totals[key] += value if isinstance(value, int) and value > 0 else 0
        return Usage(
            input_tokens=totals["input"],
            output_tokens=totals["output"],
            total_tokens=sum(totals.values()),
            cached_read_tokens=totals["cacheRead"],
            cached_write_tokens=totals["cacheWrite"],
        )


@dataclass
class SessionState:
    """One session open through ACP."""

    live: LiveSession
    fs: ClientFileSystem
    updates: LiveUpdates
    roots: list[str]
    """Folders the session may write in without asking (its cwd and additional ones)."""
    turn: TurnOutcome = field(default_factory=TurnOutcome)
    title: str | None = None
    cost: float = 0.0
    """Cost of the assistant messages on the active path (the usage_update's ``cost``)."""

    def __post_init__(self) -> None:
        self.title = self.live.store.session_name
        self.cost = sum(
            _cost(m) for m in self.live.store.context().messages if m.get("role") == "assistant"
        )

    def follow(self, event: Mapping[str, Any]) -> list[Any]:
        """Updates for one daemon event; records what the turn outcome needs."""
        kind = event["type"]
        if kind == "message_end" and event["message"].get("role") == "assistant":
            self.turn.assistant.append(event["message"])
            self.cost += _cost(event["message"])
        elif kind == "error":
            self.turn.failure = str(event.get("message"))
        return self.updates(event)

    def usage_update(self) -> UsageUpdate | None:
        """Context tokens and window, and the path's cost (None without a model)."""
        usage = self.live.agent.context_usage()
        if usage is None:
            return None
        return UsageUpdate(
            session_update="usage_update",
            used=max(0, usage.tokens or 0),
            size=usage.context_window,
            cost=Cost(amount=round(self.cost, 6), currency="USD"),
        )

    def info_update(self) -> SessionInfoUpdate | None:
        """The session's name if it changed since the client was last told."""
        name = self.live.store.session_name
        if name == self.title:
            return None
        self.title = name
        return SessionInfoUpdate(session_update="session_info_update", title=name)

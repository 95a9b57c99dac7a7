"""Per-entry token counts, cached, so re-estimating after an append costs one entry's count.

Entries are append-only and never change, so what an entry contributes before edits is counted
once and kept under its id. A message changed by a ``context_edit`` is counted afresh. Use one
:class:`TokenCounter` per session (ids are unique only within a session file).
"""

from __future__ import annotations

from pi_lsp.compaction.models import ContextEstimate
from pi_lsp.compaction.tokens import CHARS4, Estimator, estimate_context_tokens
from pi_lsp.session.context import SessionContext
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import Projected, entry_messages
from pi_lsp.session.records import Record


def _key(entry_id: str, message: JsonObject) -> str:
    # A compaction contributes its system message and its summary under one id.
    return entry_id + "\0s" if message.get("role") == "system" else entry_id


class TokenCounter:
    """Token counts of a session's entries with one estimator, cached by entry id."""

    def __init__(self, estimator: Estimator = CHARS4) -> None:
        self.estimator = estimator
        self._counts: dict[str, int] = {}

    @property
    def cached(self) -> int:
        """Number of messages counted so far."""
        return len(self._counts)

    def count(self, entry_id: str, message: JsonObject) -> int:
        """Tokens of a message that entry ``entry_id`` contributes before edits."""
        key = _key(entry_id, message)
        cached = self._counts.get(key)
        if cached is None:
            cached = self._counts[key] = self.estimator(message)
        return cached

    def count_record(self, record: Record) -> int:
        """Tokens of what an entry contributes before edits (0 for entries that add nothing)."""
        return sum(self.count(record.id, m) for m in entry_messages(record))

    def count_projected(self, entry: Projected) -> int:
        """Tokens of a projected entry's messages (edited ones are counted, not cached)."""
        if entry.edited:
            return sum(self.estimator(m) for m in entry.messages)
        return sum(self.count(entry.record.id, m) for m in entry.messages)

    def estimate(self, context: SessionContext) -> ContextEstimate:
        """pi's ``estimateContextTokens`` over a context, with cached per-entry counts."""
        messages, ids, edited = context.messages, context.entry_ids, context.edited_ids

        def count(i: int) -> int:
            if ids[i] in edited:
                return self.estimator(messages[i])
            return self.count(ids[i], messages[i])

        return estimate_context_tokens(messages, count)

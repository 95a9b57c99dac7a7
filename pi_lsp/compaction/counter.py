"""Per-entry token counts, cached, so re-estimating after an append costs one entry's count.

Entries are append-only and never change, so an entry's count is computed once and kept under
its id. Use one :class:`TokenCounter` per session (ids are unique only within a session file).
"""

from __future__ import annotations

from pi_lsp.compaction.entry_messages import summary_message
from pi_lsp.compaction.models import ContextEstimate
from pi_lsp.compaction.tokens import CHARS4, Estimator, estimate_context_tokens
from pi_lsp.session.context import SessionContext
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.records import Record


class TokenCounter:
    """Token counts of a session's entries with one estimator, cached by entry id."""

    def __init__(self, estimator: Estimator = CHARS4) -> None:
        self.estimator = estimator
        self._counts: dict[str, int] = {}

    @property
    def cached(self) -> int:
        """Number of entries counted so far."""
        return len(self._counts)

    def count(self, entry_id: str, message: JsonObject) -> int:
        """Tokens of the message that entry ``entry_id`` contributes."""
        cached = self._counts.get(entry_id)
        if cached is None:
            cached = self._counts[entry_id] = self.estimator(message)
        return cached

    def count_record(self, record: Record) -> int:
        """Tokens of an entry's summary message (0 for entries that have none)."""
        cached = self._counts.get(record.id)
        if cached is not None:
            return cached
        message = record.value.get("message") if record.type == "message" else None
        if not isinstance(message, dict):
            message = summary_message(record)
            if message is None:
                return 0
        cached = self._counts[record.id] = self.estimator(message)
        return cached

    def estimate(self, context: SessionContext) -> ContextEstimate:
        """pi's ``estimateContextTokens`` over a context, with cached per-entry counts."""
        messages, ids = context.messages, context.entry_ids
        return estimate_context_tokens(messages, lambda i: self.count(ids[i], messages[i]))

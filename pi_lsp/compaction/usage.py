"""When to compact, and how full the window is (pi's ``shouldCompact`` and ``getContextUsage``).

Reads the store but never writes it. Right after a compaction the last provider usage still
measures the old, longer context, so the usage is unknown until an assistant message after the
compaction reports a non-zero one.
"""

from __future__ import annotations

from pi_lsp.compaction.counter import TokenCounter
from pi_lsp.compaction.models import CompactionSettings, ContextUsage
from pi_lsp.compaction.tokens import assistant_usage, calculate_context_tokens
from pi_lsp.session import SessionStore
from pi_lsp.session.records import Record


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """True when automatic compaction is on and the context exceeds ``window - reserve``."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


def usage_known(store: SessionStore, leaf_id: str | None = None) -> bool:
    """False while no assistant after the latest compaction on the path reported usage."""
    start = leaf_id if leaf_id is not None else store.leaf_id
    current = store.get(start) if start is not None else None
    while current is not None:
        if current.type == "compaction":
            return False
        if current.type == "message" and current.role == "assistant":
            message = current.value["message"]
            if message.get("stopReason") not in ("aborted", "error"):
                usage = assistant_usage(message)
                if usage is not None and calculate_context_tokens(usage) > 0:
                    return True
                return not _compaction_above(store, current)
        current = _parent(store, current)
    return True


def _parent(store: SessionStore, record: Record) -> Record | None:
    return store.get(record.parent_id) if record.parent_id is not None else None


def _compaction_above(store: SessionStore, record: Record) -> bool:
    current = _parent(store, record)
    while current is not None and current.type != "compaction":
        current = _parent(store, current)
    return current is not None


def context_usage(
    store: SessionStore,
    counter: TokenCounter,
    context_window: int,
    leaf_id: str | None = None,
) -> ContextUsage | None:
    """Estimated context tokens and percent of the window; None without a known window."""
    if context_window <= 0:
        return None
    if not usage_known(store, leaf_id):
        return ContextUsage(tokens=None, context_window=context_window, percent=None)
    estimate = counter.estimate(store.context(leaf_id))
    return ContextUsage(
        tokens=estimate.tokens,
        context_window=context_window,
        percent=estimate.tokens / context_window * 100,
    )

"""Projected entries as compaction and branch summaries see them (pi 1.6.0). Pure.

A compaction plans over pi's projection (:mod:`pi_lsp.session.projection`): an entry may be a
cut point when one of its projected messages is user-like or an assistant, it opens a turn when
one is user-like, and the older compaction entries of a kept range never count. Summaries never
see ``system`` messages (the compaction carries their replay). A branch summary maps entries
slightly differently (pi's ``getMessageFromEntry``): tool results are skipped, a
``branch_summary`` with an empty summary still counts, and a compaction is its summary.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import (
    Projected,
    apply_edit,
    branch_summary_message,
    compaction_message,
    custom_message,
    message_of,
)
from pi_lsp.session.records import Record

CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""Roles a cut may start at (never ``toolResult``)."""
TURN_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})
"""Roles that open a turn."""


def summary_messages(entry: Projected) -> list[JsonObject]:
    """What a projected entry contributes to a compaction's summarized range."""
    if entry.record.type == "compaction":
        return []
    return [m for m in entry.messages if m.get("role") != "system"]


def is_cut_point(entry: Projected) -> bool:
    """A history may be cut right before this projected entry."""
    return entry.record.type != "compaction" and any(
        m.get("role") in CUT_ROLES for m in entry.messages
    )


def starts_turn(entry: Projected) -> bool:
    """This projected entry opens a turn."""
    return entry.record.type != "compaction" and any(
        m.get("role") in TURN_ROLES for m in entry.messages
    )


def branch_message(record: Record, edit: Record | None = None) -> JsonObject | None:
    """pi's ``getMessageFromEntry`` for branch summaries, with the entry's latest edit."""
    kind = record.type
    if kind == "message":
        if record.role == "toolResult":
            return None
        message = record.value.get("message")
        if not isinstance(message, dict):
            return None
        if edit is None:
            return message
        repaired = message_of(record)
        edited = apply_edit([repaired], edit) if repaired is not None else []
        return edited[0] if edited else None
    if kind == "custom_message":
        if edit is None:
            return custom_message(record, record.value.get("content"))
        edited = apply_edit([custom_message(record, record.value.get("content") or [])], edit)
        return edited[0] if edited else None
    if kind == "branch_summary":
        return branch_summary_message(record)
    if kind == "compaction":
        return compaction_message(record)
    return None


def text_of(content: Any) -> str:
    """A message's text: a string as is, text blocks concatenated without a separator."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )

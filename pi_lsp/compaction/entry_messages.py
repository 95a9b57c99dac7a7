"""Entries as the messages a summary sees (pi's ``getMessageFromEntry`` twins). Pure.

Compaction and branch summaries map entries slightly differently from context building: a
``branch_summary`` with an empty summary is still a message, a ``compaction`` entry becomes its
``compactionSummary``, and branch summaries skip tool results entirely (spec 6.4, 7.2).
"""

from __future__ import annotations

from typing import Any

from pi_lsp.session.context import compaction_message, entry_message
from pi_lsp.session.ids import parse_iso_ms
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.records import Record

CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""Roles of ``message`` entries a cut may start at (never ``toolResult``)."""


def summary_message(record: Record) -> JsonObject | None:
    """The message an entry contributes to a compaction's summarized range, or None."""
    kind = record.type
    if kind == "message" or kind == "custom_message":
        return entry_message(record)
    if kind == "branch_summary":
        value = record.value
        return {
            "role": "branchSummary",
            "summary": value.get("summary"),
            "fromId": value.get("fromId"),
            "timestamp": parse_iso_ms(record.timestamp),
        }
    if kind == "compaction":
        return compaction_message(record)
    return None


def branch_message(record: Record) -> JsonObject | None:
    """Like :func:`summary_message`, but tool results are left out (their call says enough)."""
    if record.type == "message" and record.role == "toolResult":
        return None
    return summary_message(record)


def is_cut_point(record: Record) -> bool:
    """A history may be cut right before this entry (spec 6.3)."""
    kind = record.type
    if kind == "message":
        return record.role in CUT_ROLES
    return kind == "branch_summary" or kind == "custom_message"


def starts_turn(record: Record) -> bool:
    """This entry opens a turn: a user or bash message, a branch summary, a custom message."""
    kind = record.type
    if kind == "message":
        return record.role == "user" or record.role == "bashExecution"
    return kind == "branch_summary" or kind == "custom_message"


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

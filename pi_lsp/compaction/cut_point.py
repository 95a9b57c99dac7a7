"""Where to cut a history so about ``keep_recent_tokens`` stay verbatim (pi 1.6.0). Pure.

Compaction plans over pi's projection (:mod:`pi_lsp.session.projection`): an entry may be a cut
point when one of its projected messages is user-like or an assistant, it opens a turn when one
is user-like, and the older compaction entries of a kept range never count. Summaries never see
``system`` messages (the compaction carries their replay). A branch summary maps entries
slightly differently (pi's ``getMessageFromEntry``): tool results are skipped, a
``branch_summary`` with an empty summary still counts, and a compaction is its summary.

:func:`find_cut_point` is pi's ``findProjectedCutPoint``: the walk goes backwards from the newest
entry, counting every projected message (branch summaries and custom messages too; omitted
entries count nothing), until the budget is reached; a cut never lands on a tool result; a cut
before a closed suffix made only of an omitted recovery attempt moves past it; the cut then
absorbs the context-invisible entries right before it; a cut inside a turn is a *split turn*,
whose beginning gets its own summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import (
    Projected,
    apply_edit,
    branch_summary_message,
    compaction_message,
    custom_message,
    entry_messages,
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


def _has_role(entry: Projected, roles: frozenset[str]) -> bool:
    if entry.record.type == "compaction":
        return False
    messages = entry.messages
    if len(messages) == 1:  # nearly every entry: no generator to build
        return messages[0].get("role") in roles
    return any(message.get("role") in roles for message in messages)


def is_cut_point(entry: Projected) -> bool:
    """A history may be cut right before this projected entry."""
    return _has_role(entry, CUT_ROLES)


def starts_turn(entry: Projected) -> bool:
    """This projected entry opens a turn."""
    return _has_role(entry, TURN_ROLES)


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


@dataclass(frozen=True, slots=True)
class CutPoint:
    """pi's ``CutPointResult`` (indices into the projected entries)."""

    first_kept_index: int
    """Projection index of the first entry kept verbatim."""
    turn_start_index: int
    """Projection index of the entry that starts the split turn; -1 when the cut starts a turn
    or no turn start exists in range."""
    is_split_turn: bool
    """True when the cut lies inside a turn and that turn's start was found in range."""


def find_turn_start(entries: Sequence[Projected], index: int, start: int) -> int:
    """The nearest entry at or before ``index`` (not below ``start``) that starts a turn, or -1."""
    for i in range(index, start - 1, -1):
        if starts_turn(entries[i]):
            return i
    return -1


def _visible(entry: Projected) -> bool:
    """Context-visible before edits (pi's ``isIntrinsicallyVisible``)."""
    return entry.record.type != "context_edit" and bool(entry_messages(entry.record))


def _omitted(entry: Projected) -> bool:
    return not entry.messages and _visible(entry)


def _recovery_suffix(suffix: Sequence[Projected]) -> bool:
    """pi's ``isRecoveryOmissionSuffix`` (without the budget condition).

    Its three conditions, cheapest first: the suffix holds only omitted or invisible entries
    and no compaction (this fails at the first kept message, so the usual answer costs one
    entry), one of them is an omitted assistant, and every replacing edit in it targets an
    omitted entry.
    """
    if not all(e.record.type != "compaction" and (not _visible(e) or _omitted(e)) for e in suffix):
        return False
    if not any(
        e.record.type == "message" and e.record.role == "assistant" and _omitted(e) for e in suffix
    ):
        return False
    omitted = {e.record.id for e in suffix if _omitted(e)}
    for entry in suffix:
        record = entry.record
        if record.type == "context_edit":
            value = record.value
            if value.get("replacement") is not None and value.get("targetId") not in omitted:
                return False
    return True


def _last_cut_point(entries: Sequence[Projected], start: int, below: int) -> int:
    """The last cut point in ``entries[start:below]``, or -1."""
    for index in range(below - 1, start - 1, -1):
        if is_cut_point(entries[index]):
            return index
    return -1


def find_cut_point(
    entries: Sequence[Projected],
    start: int,
    end: int,
    keep_recent_tokens: int,
    count: Callable[[Projected], int],
) -> CutPoint:
    """Cut ``entries[start:end]`` keeping about ``keep_recent_tokens`` (``count`` sizes one).

    pi lists every cut point of the range first; here the backward walk notes the nearest one
    at or after where it is, so only the kept suffix is looked at (a long history costs
    nothing beyond the budget). The result is the same.
    """
    nearest = -1
    """The first cut point at or after the walk's position (-1: none yet)."""
    exceeded_at = -1
    total = 0
    for index in range(end - 1, start - 1, -1):
        entry = entries[index]
        if is_cut_point(entry):
            nearest = index
        tokens = count(entry)
        if tokens == 0:
            continue
        total += tokens
        if total >= keep_recent_tokens:
            exceeded_at = index
            break
    if exceeded_at < 0:
        cut = nearest  # never exceeded: keep from the first cut point
    elif nearest >= 0:
        cut = nearest
    else:  # trailing entries past the budget hold no cut point: keep from the last one before
        cut = _last_cut_point(entries, start, exceeded_at)
    if cut < 0:
        return CutPoint(first_kept_index=start, turn_start_index=-1, is_split_turn=False)
    if exceeded_at >= 0 and _recovery_suffix(entries[cut + 1 : end]):
        cut += 1
    while cut > start:
        previous = entries[cut - 1]
        if previous.record.type == "compaction" or previous.messages:
            break
        cut -= 1
    if cut < len(entries) and starts_turn(entries[cut]):
        return CutPoint(first_kept_index=cut, turn_start_index=-1, is_split_turn=False)
    turn_start = find_turn_start(entries, min(cut, len(entries) - 1), start)
    return CutPoint(
        first_kept_index=cut, turn_start_index=turn_start, is_split_turn=turn_start != -1
    )

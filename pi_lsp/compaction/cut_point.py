"""Where to cut a history so about ``keep_recent_tokens`` stay verbatim. Pure.

pi 1.6.0's ``findProjectedCutPoint``, over projected entries (:mod:`pi_lsp.session.projection`).

The walk goes backwards from the newest entry, counting every projected message (branch
summaries and custom messages too; omitted entries count nothing), until the budget is reached;
a cut never lands on a tool result; a cut before a closed suffix made only of an omitted
recovery attempt moves past it; the cut then absorbs the context-invisible entries right
before it; a cut inside a turn is a *split turn*, whose beginning gets its own summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_lsp.compaction.entry_messages import is_cut_point, starts_turn
from pi_lsp.session.projection import Projected, entry_messages


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
    """pi's ``isRecoveryOmissionSuffix`` (without the budget condition)."""
    omitted = {e.record.id for e in suffix if _omitted(e)}
    for entry in suffix:
        record = entry.record
        if record.type == "context_edit":
            value = record.value
            if value.get("replacement") is not None and value.get("targetId") not in omitted:
                return False
    if not any(
        e.record.type == "message" and e.record.role == "assistant" and _omitted(e) for e in suffix
    ):
        return False
    return all(e.record.type != "compaction" and (not _visible(e) or _omitted(e)) for e in suffix)


def find_cut_point(
    entries: Sequence[Projected],
    start: int,
    end: int,
    keep_recent_tokens: int,
    count: Callable[[Projected], int],
) -> CutPoint:
    """Cut ``entries[start:end]`` keeping about ``keep_recent_tokens`` (``count`` sizes one)."""
    cut_points = [i for i in range(start, end) if is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(first_kept_index=start, turn_start_index=-1, is_split_turn=False)
    cut = cut_points[0]
    total = 0
    exceeded = False
    for index in range(end - 1, start - 1, -1):
        tokens = count(entries[index])
        if tokens == 0:
            continue
        total += tokens
        if total >= keep_recent_tokens:
            exceeded = True
            cut = next((c for c in cut_points if c >= index), cut_points[-1])
            break
    if exceeded and _recovery_suffix(entries[cut + 1 : end]):
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

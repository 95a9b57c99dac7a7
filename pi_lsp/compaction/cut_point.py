"""Where to cut a history so about ``keep_recent_tokens`` stay verbatim (pi's ``findCutPoint``).

Pure, and proportional to the kept tail rather than to the whole path: the walk goes backwards
from the newest entry, counting only ``message`` entries, until the budget is reached; a cut
never lands on a tool result (it must stay with its call); the cut then absorbs the settings,
label and other non-message entries right before it; a cut inside a turn is a *split turn*,
whose beginning gets its own summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_lsp.compaction.entry_messages import is_cut_point, starts_turn
from pi_lsp.session.records import Record


@dataclass(frozen=True, slots=True)
class CutPoint:
    """pi's ``CutPointResult``."""

    first_kept_index: int
    """Path index of the first entry kept verbatim."""
    turn_start_index: int
    """Path index of the entry that starts the split turn; -1 when the cut is at a user message
    or no turn start exists in range."""
    is_split_turn: bool
    """True when the cut lies inside a turn (not at a user message) and that turn's start was
    found in range."""


def _first_cut_point(path: Sequence[Record], start: int, end: int) -> int:
    for index in range(start, end):
        if is_cut_point(path[index]):
            return index
    return -1


def find_turn_start(path: Sequence[Record], index: int, start: int) -> int:
    """The nearest entry at or before ``index`` (not below ``start``) that starts a turn, or -1."""
    for i in range(index, start - 1, -1):
        if starts_turn(path[i]):
            return i
    return -1


def _budget_cut(
    path: Sequence[Record], start: int, end: int, keep: int, count: Callable[[Record], int]
) -> int:
    """First cut point at or after the entry where the kept budget is reached, or -1."""
    total = 0
    for index in range(end - 1, start - 1, -1):
        record = path[index]
        if record.type != "message":
            continue
        total += count(record)
        if total >= keep:
            return _first_cut_point(path, index, end)
    return -1


def find_cut_point(
    path: Sequence[Record],
    start: int,
    end: int,
    keep_recent_tokens: int,
    count: Callable[[Record], int],
) -> CutPoint:
    """Cut ``path[start:end]`` keeping about ``keep_recent_tokens`` (``count`` sizes an entry)."""
    cut = _budget_cut(path, start, end, keep_recent_tokens, count)
    if cut < 0:  # everything fits, or only tool results lie past the budget: keep it all
        cut = _first_cut_point(path, start, end)
        if cut < 0:
            return CutPoint(first_kept_index=start, turn_start_index=-1, is_split_turn=False)
    while cut > start and path[cut - 1].type not in ("compaction", "message"):
        cut -= 1
    entry = path[cut]
    if entry.type == "message" and entry.role == "user":
        return CutPoint(first_kept_index=cut, turn_start_index=-1, is_split_turn=False)
    turn_start = find_turn_start(path, cut, start)
    return CutPoint(
        first_kept_index=cut, turn_start_index=turn_start, is_split_turn=turn_start != -1
    )

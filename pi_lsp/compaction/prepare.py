"""Where to cut a history and what a compaction would summarize (pi 1.6.0's cut point, preparation).

pi's ``findProjectedCutPoint`` and ``prepareCompaction``; pure but for :func:`compaction_window`,
which reads the store.

The plan is made over pi's projection of the path (:mod:`pi_lsp.session.projection`): the
previous compaction, the range it kept, everything after it, each entry as its latest
``context_edit`` leaves it. :func:`prepare_run` reads that projection laid flat (a
:class:`~pi_lsp.session.runs.ProjectedRun`); :func:`prepare_compaction` takes it from the
store's context cache (what :func:`compaction_window` hands over), from the counter (the same
records as last time), or lays the path's context flat, which is the projection itself
whenever an edit makes the two differ, so no entry is projected twice.

The range the previous compaction kept opens the summarized range (pi v0.58.3 dropped it
silently; pi_lsp's decision D2 fixed that, and pi 1.6.0 now does the same). System messages
are never summarized. The cut point, ``firstKeptEntryId``, the turn prefix and
``tokensBefore`` (``estimateProjectedContextTokens``) are exactly pi 1.6.0's.

An entry may be a cut point when one of its projected messages is user-like or an assistant, it
opens a turn when one is user-like, and the older compaction entries of a kept range never count.
:func:`find_cut_point` is pi's ``findProjectedCutPoint``: the walk goes backwards from the newest
entry, counting every projected message (branch summaries and custom messages too; omitted
entries count nothing), until the budget is reached; a cut never lands on a tool result; a cut
before a closed suffix made only of an omitted recovery attempt moves past it; the cut then
absorbs the context-invisible entries right before it; a cut inside a turn is a *split turn*,
whose beginning gets its own summary.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial

from pi_lsp.compaction.models import (
    AlreadyCompactedError,
    CompactionPreparation,
    CompactionSettings,
    CutPoint,
    FileOps,
    NothingToCompactError,
)
from pi_lsp.compaction.tokens import TokenCounter, assistant_usage, calculate_context_tokens
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import CompactionEntry, entry_as
from pi_lsp.session.jsonl import JsonObject, Record
from pi_lsp.session.projection import Projected, current_system_message, entry_messages
from pi_lsp.session.runs import ProjectedRun, ProjectedWindow, context_bounds

CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""Roles a cut may start at (never ``toolResult``)."""
TURN_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})
"""Roles that open a turn."""


def _has_role(run: ProjectedRun, index: int, roles: frozenset[str]) -> bool:
    if run.records[index].type == "compaction":
        return False
    low, high = run.ends[index], run.ends[index + 1]
    messages = run.messages
    if high - low == 1:  # nearly every entry: no generator to build
        return messages[low].get("role") in roles
    return any(messages[i].get("role") in roles for i in range(low, high))


def _find_turn_start(run: ProjectedRun, index: int, start: int) -> int:
    """The nearest entry at or before ``index`` (not below ``start``) that starts a turn, or -1."""
    for i in range(index, start - 1, -1):
        if _has_role(run, i, TURN_ROLES):
            return i
    return -1


def _visible(record: Record) -> bool:
    """Context-visible before edits (pi's ``isIntrinsicallyVisible``)."""
    return record.type != "context_edit" and bool(entry_messages(record))


def _omitted(run: ProjectedRun, index: int) -> bool:
    return run.ends[index] == run.ends[index + 1] and _visible(run.records[index])


def _recovery_suffix(run: ProjectedRun, begin: int, end: int) -> bool:
    """pi's ``isRecoveryOmissionSuffix`` over ``run[begin:end]`` (without the budget condition).

    Its three conditions, cheapest first: the suffix holds only omitted or invisible entries
    and no compaction (this fails at the first kept message, so the usual answer costs one
    entry), one of them is an omitted assistant, and every replacing edit in it targets an
    omitted entry.
    """
    records, suffix = run.records, range(begin, end)
    if not all(
        records[i].type != "compaction" and (not _visible(records[i]) or _omitted(run, i))
        for i in suffix
    ):
        return False
    if not any(
        records[i].type == "message" and records[i].role == "assistant" and _omitted(run, i)
        for i in suffix
    ):
        return False
    omitted = {records[i].id for i in suffix if _omitted(run, i)}
    for i in suffix:
        record = records[i]
        if record.type == "context_edit":
            value = record.value
            if value.get("replacement") is not None and value.get("targetId") not in omitted:
                return False
    return True


def find_cut_point(
    entries: Sequence[Projected],
    start: int,
    end: int,
    keep_recent_tokens: int,
    count: Callable[[Projected], int],
) -> CutPoint:
    """Cut ``entries[start:end]`` keeping about ``keep_recent_tokens`` (``count`` sizes one)."""
    run = ProjectedRun.of_projected(entries)
    return cut_run(run, start, end, keep_recent_tokens, lambda i: count(entries[i]))


def cut_run(
    run: ProjectedRun, start: int, end: int, keep_recent_tokens: int, count: Callable[[int], int]
) -> CutPoint:
    """:func:`find_cut_point` over a run (``count(i)`` sizes its entry ``i``).

    pi lists every cut point of the range first; here the backward walk notes the nearest one
    at or after where it is, so only the kept suffix is looked at (a long history costs
    nothing beyond the budget). The result is the same.
    """
    nearest = -1
    """The first cut point at or after the walk's position (-1: none yet)."""
    exceeded_at = -1
    total = 0
    records, messages, ends = run.records, run.messages, run.ends
    for index in range(end - 1, start - 1, -1):
        low = ends[index]
        if ends[index + 1] - low == 1:  # inline _has_role for the usual single message
            if messages[low].get("role") in CUT_ROLES and records[index].type != "compaction":
                nearest = index
        elif _has_role(run, index, CUT_ROLES):
            nearest = index
        tokens = count(index)
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
        cut = next(
            (i for i in range(exceeded_at - 1, start - 1, -1) if _has_role(run, i, CUT_ROLES)), -1
        )
    if cut < 0:
        return CutPoint(first_kept_index=start, turn_start_index=-1, is_split_turn=False)
    if exceeded_at >= 0 and _recovery_suffix(run, cut + 1, end):
        cut += 1
    while cut > start:
        if records[cut - 1].type == "compaction" or ends[cut] > ends[cut - 1]:
            break
        cut -= 1
    size = len(records)
    if cut < size and _has_role(run, cut, TURN_ROLES):
        return CutPoint(first_kept_index=cut, turn_start_index=-1, is_split_turn=False)
    turn_start = _find_turn_start(run, min(cut, size - 1), start)
    return CutPoint(
        first_kept_index=cut, turn_start_index=turn_start, is_split_turn=turn_start != -1
    )


def _entry_at(run: ProjectedRun, message: int) -> int:
    """The entry whose messages include ``run.messages[message]``."""
    return bisect_right(run.ends, message) - 1


def projected_tokens(run: ProjectedRun, path: Sequence[Record], counter: TokenCounter) -> int:
    """pi's ``estimateProjectedContextTokens`` (``tokensBefore``).

    The last usable provider usage anchors the total only when no edit or compaction came
    after its entry on the path; otherwise every message is estimated, all system messages
    replayed into one.
    """
    messages = run.messages
    for last in range(len(messages) - 1, -1, -1):
        message = messages[last]
        if message.get("role") != "assistant":
            continue
        usage = assistant_usage(message)
        if usage is None:
            continue
        index = _entry_at(run, last)
        if not _usable(run.records[index], path):
            return _estimate_all(run, counter)
        trailing = sum(counter.estimator(m) for m in messages[last + 1 : run.ends[index + 1]])
        trailing += sum(counter.count_run(run, i) for i in range(index + 1, len(run.records)))
        return calculate_context_tokens(usage) + trailing
    return _estimate_all(run, counter)


def _usable(usage_entry: Record, path: Sequence[Record]) -> bool:
    """The usage entry comes after the path's last ``context_edit`` or compaction.

    pi compares the usage entry's index with the last such entry's; path ids are unique, so
    walking back from the leaf to whichever of the two comes first gives the same answer.
    """
    usage_id = usage_entry.id
    for index in range(len(path) - 1, -1, -1):
        record = path[index]
        if record.id == usage_id:
            return True
        if record.type in ("context_edit", "compaction"):
            return False
    return False


def _estimate_all(run: ProjectedRun, counter: TokenCounter) -> int:
    system = current_system_message(run.messages)
    tokens = counter.estimator(system) if system is not None else 0
    messages, ends = run.messages, run.ends
    for index in range(len(run.records)):
        own = messages[ends[index] : ends[index + 1]]
        if any(m.get("role") == "system" for m in own):
            tokens += sum(counter.estimator(m) for m in own if m.get("role") != "system")
        else:
            tokens += counter.count_run(run, index)
    return tokens


def _collect(
    run: ProjectedRun,
    begin: int,
    end: int,
    messages: list[JsonObject],
    ids: list[str],
    file_ops: FileOps,
) -> int:
    """Append the summarized messages of ``run[begin:end]``, record their file operations.

    Returns how many. A compaction in such a range always projects to nothing (only the newest
    contributes, and it opens the range: summary_messages), so only system messages are left
    out.
    """
    if begin >= end:
        return 0
    low, high = run.ends[begin], run.ends[end]
    chosen = run.messages[low:high]
    names = run.ids[low:high]
    system = False
    add = file_ops.add_message
    for message in chosen:
        role = message.get("role")
        if role == "assistant" or role == "toolResult":  # the only ones with file calls
            add(message)
        elif role == "system":
            system = True
    if system:
        kept = [i for i, m in enumerate(chosen) if m.get("role") != "system"]
        chosen = [chosen[i] for i in kept]
        names = [names[i] for i in kept]
    messages += chosen
    ids += names
    return len(chosen)


def prepare_compaction(
    path: Sequence[Record], settings: CompactionSettings, counter: TokenCounter | None = None
) -> CompactionPreparation | None:
    """Prepare compacting a root-first path; None when its last entry is a compaction (or empty).

    ``counter`` sizes entries (default: chars4, pi's estimate) and keeps its counts for reuse.
    The path may be the full branch or just :func:`compaction_window` of it (same result): it
    is cut to where its context begins (:func:`context_bounds`) first, so the work is
    proportional to the context, not to the session. The plan is made over the projection of
    that part (:func:`~pi_lsp.session.runs.window_run`, or the store's own from
    :func:`compaction_window`).
    """
    if not path or path[-1].type == "compaction":
        return None
    counter = counter if counter is not None else TokenCounter()
    run = path.run() if isinstance(path, ProjectedWindow) else None
    if run is None:
        begin, at = context_bounds(path)
        path = path[begin:]
        run = counter.run_of(path, at - begin if at >= 0 else -1)
    return prepare_run(run, path, settings, counter)


def prepare_run(
    run: ProjectedRun, window: Sequence[Record], settings: CompactionSettings, counter: TokenCounter
) -> CompactionPreparation | None:
    """The preparation over the projection ``run`` of ``window`` (the path from its context)."""
    # The last compaction is projected first (pi finds it with findIndex, and skips it when
    # an edit omitted it); the range to cut starts after it.
    previous_record = run.records[0] if run.after and run.ends[1] else None
    previous = entry_as(previous_record, CompactionEntry) if previous_record is not None else None
    start = 1 if previous is not None else 0
    size = len(run.records)
    cut = cut_run(run, start, size, settings.keep_recent_tokens, partial(counter.count_run, run))
    if cut.first_kept_index >= size:
        return None
    prep = CompactionPreparation(
        first_kept_entry_id=run.records[cut.first_kept_index].id,
        cut=cut,
        tokens_before=projected_tokens(run, window, counter),
        previous_summary=previous.get("summary") if previous is not None else None,
        settings=settings,
        leaf_id=window[-1].id,
    )
    # File operations in pi's order: earlier details, summarized history, turn prefix.
    if previous is not None and not previous.get("fromHook"):
        prep.file_ops.add_details(previous.get("details"))
    summarized, ids, ops = prep.messages_to_summarize, prep.summarize_ids, prep.file_ops
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    if previous is not None:
        # What the previous compaction kept opens the summarized range (D2): the projected
        # entries before those that follow the compaction on the path.
        kept_end = min(run.after, history_end)
        prep.previous_kept_count = _collect(run, start, kept_end, summarized, ids, ops)
        _collect(run, max(start, kept_end), history_end, summarized, ids, ops)
    else:
        _collect(run, start, history_end, summarized, ids, ops)
    if cut.is_split_turn:
        turn = prep.turn_prefix_messages, prep.turn_prefix_ids
        _collect(run, cut.turn_start_index, cut.first_kept_index, *turn, ops)
    return prep


def compaction_window(store: SessionStore, leaf_id: str | None = None) -> list[Record]:
    """The end of the leaf's path that a preparation reads, root-first.

    From the previous compaction's first kept entry (or the root) to the leaf: with a
    compaction on the path, the work is proportional to what came after it, not to the whole
    session. :func:`prepare_compaction` gives the same result on this as on the full path.
    The store's context cache gives the records and their projection when it can (a window
    then starts at the compaction when it keeps nothing above it); else the path is walked.
    """
    cached = store.context_run(leaf_id)
    if cached is not None:
        return cached
    start = leaf_id if leaf_id is not None else store.leaf_id
    window: list[Record] = []
    current = store.get(start) if start is not None else None
    first_kept: object = None
    limit = store.entry_count
    while current is not None and len(window) <= limit:
        window.append(current)
        if first_kept is None and current.type == "compaction":
            first_kept = current.value.get("firstKeptEntryId") or ""
        elif first_kept is not None and current.id == first_kept:
            break
        current = store.get(current.parent_id) if current.parent_id is not None else None
    window.reverse()
    return window


def plan_compaction(
    path: Sequence[Record], settings: CompactionSettings, counter: TokenCounter | None = None
) -> CompactionPreparation:
    """:func:`prepare_compaction` for a compaction that will really run.

    Raises:
        AlreadyCompactedError: the path ends with a compaction.
        NothingToCompactError: there is nothing to summarize (everything is kept).
    """
    prep = prepare_compaction(path, settings, counter)
    if prep is None:
        if not path:
            raise NothingToCompactError("the session is empty")
        raise AlreadyCompactedError()
    if prep.nothing_to_summarize:
        raise NothingToCompactError(
            f"session too small: all of it fits in keepRecentTokens={settings.keep_recent_tokens}"
        )
    return prep

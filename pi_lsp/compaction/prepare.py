"""Where to cut a history and what a compaction would summarize (pi 1.6.0's cut point, preparation).

pi's ``findProjectedCutPoint`` and ``prepareCompaction``; pure but for :func:`compaction_window`,
which walks the store.

The plan is made over pi's projection of the path (:mod:`pi_lsp.session.projection`): the
previous compaction, the range it kept, everything after it, each entry as its latest
``context_edit`` leaves it. The range the previous compaction kept opens the summarized range
(pi v0.58.3 dropped it silently; pi_lsp's decision D2 fixed that, and pi 1.6.0 now does the
same). System messages are never summarized. The cut point, ``firstKeptEntryId``, the turn
prefix and ``tokensBefore`` (``estimateProjectedContextTokens``) are exactly pi 1.6.0's.

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

from collections.abc import Callable, Sequence

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
from pi_lsp.session.projection import (
    Projected,
    current_system_message,
    entry_messages,
    project_path,
)

CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""Roles a cut may start at (never ``toolResult``)."""
TURN_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})
"""Roles that open a turn."""


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


def projected_tokens(
    projected: Sequence[Projected], path: Sequence[Record], counter: TokenCounter
) -> int:
    """pi's ``estimateProjectedContextTokens`` (``tokensBefore``).

    The last usable provider usage anchors the total only when no edit or compaction came
    after its entry on the path; otherwise every message is estimated, all system messages
    replayed into one.
    """
    for index in range(len(projected) - 1, -1, -1):
        entry = projected[index]
        messages = entry.messages
        for last in range(len(messages) - 1, -1, -1):
            usage = assistant_usage(messages[last])
            if usage is None:
                continue
            if not _usable(entry.record, path):
                return _estimate_all(projected, counter)
            trailing = sum(counter.estimator(m) for m in messages[last + 1 :])
            trailing += sum(counter.count_projected(e) for e in projected[index + 1 :])
            return calculate_context_tokens(usage) + trailing
    return _estimate_all(projected, counter)


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


def _estimate_all(projected: Sequence[Projected], counter: TokenCounter) -> int:
    system = current_system_message(m for e in projected for m in e.messages)
    tokens = counter.estimator(system) if system is not None else 0
    for entry in projected:
        if any(m.get("role") == "system" for m in entry.messages):
            tokens += sum(counter.estimator(m) for m in entry.messages if m.get("role") != "system")
        else:
            tokens += counter.count_projected(entry)
    return tokens


def _collect(
    entries: Sequence[Projected],
    messages: list[JsonObject],
    ids: list[str],
    file_ops: FileOps,
) -> int:
    """Append the summarized messages of ``entries``, record their file operations; how many."""
    before = len(messages)
    for entry in entries:
        if entry.record.type == "compaction":
            continue  # only the newest contributes, and it opens the range (summary_messages)
        entry_id = entry.record.id
        for message in entry.messages:
            role = message.get("role")
            if role == "system":
                continue
            messages.append(message)
            ids.append(entry_id)
            if role == "assistant" or role == "toolResult":  # the only ones with file calls
                file_ops.add_message(message)
    return len(messages) - before


def context_bounds(path: Sequence[Record]) -> tuple[int, int]:
    """Where the context of a root-first path begins, and where its last compaction is.

    The context begins at the last compaction's first kept entry (the compaction itself when
    that entry is not above it, 0 without a compaction; the compaction's index is then -1).
    Nothing before it is projected (pi's ``buildContextEntries``), so a preparation reads
    from there.
    """
    for at in range(len(path) - 1, -1, -1):
        if path[at].type == "compaction":
            first_kept = path[at].value.get("firstKeptEntryId")
            for index in range(at - 1, -1, -1):
                if path[index].id == first_kept:
                    return index, at
            return at, at
    return 0, -1


def prepare_compaction(
    path: Sequence[Record], settings: CompactionSettings, counter: TokenCounter | None = None
) -> CompactionPreparation | None:
    """Prepare compacting a root-first path; None when its last entry is a compaction (or empty).

    ``counter`` sizes entries (default: chars4, pi's estimate) and keeps its counts for reuse.
    The path may be the full branch or just :func:`compaction_window` of it (same result): it
    is cut to where its context begins (:func:`context_bounds`) first, so the work is
    proportional to the context, not to the session.
    """
    if not path or path[-1].type == "compaction":
        return None
    counter = counter if counter is not None else TokenCounter()
    begin, at = context_bounds(path)
    window = path[begin:]
    projected = project_path(window)
    # The last compaction is projected first (pi finds it with findIndex, and skips it when
    # an edit omitted it); the range to cut starts after it.
    previous = entry_as(path[at], CompactionEntry) if at >= 0 and projected[0].messages else None
    start = 1 if previous is not None else 0
    cut = find_cut_point(
        projected, start, len(projected), settings.keep_recent_tokens, counter.count_projected
    )
    if cut.first_kept_index >= len(projected):
        return None
    prep = CompactionPreparation(
        first_kept_entry_id=projected[cut.first_kept_index].record.id,
        cut=cut,
        tokens_before=projected_tokens(projected, window, counter),
        previous_summary=previous.get("summary") if previous is not None else None,
        settings=settings,
        leaf_id=path[-1].id,
    )
    # File operations in pi's order: earlier details, summarized history, turn prefix.
    if previous is not None and not previous.get("fromHook"):
        prep.file_ops.add_details(previous.get("details"))
    summarized, ids, ops = prep.messages_to_summarize, prep.summarize_ids, prep.file_ops
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    if previous is not None:
        # What the previous compaction kept opens the summarized range (D2): the projected
        # entries before those that follow the compaction on the path.
        kept_end = min(len(projected) - (len(path) - 1 - at), history_end)
        prep.previous_kept_count = _collect(projected[start:kept_end], summarized, ids, ops)
        _collect(projected[max(start, kept_end) : history_end], summarized, ids, ops)
    else:
        _collect(projected[start:history_end], summarized, ids, ops)
    if cut.is_split_turn:
        prefix = projected[cut.turn_start_index : cut.first_kept_index]
        _collect(prefix, prep.turn_prefix_messages, prep.turn_prefix_ids, ops)
    return prep


def compaction_window(store: SessionStore, leaf_id: str | None = None) -> list[Record]:
    """The end of the leaf's path that a preparation reads, root-first.

    From the previous compaction's first kept entry (or the root) to the leaf: with a
    compaction on the path, the work is proportional to what came after it, not to the whole
    session. :func:`prepare_compaction` gives the same result on this as on the full path.
    """
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

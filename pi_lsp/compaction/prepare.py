"""What a compaction would summarize and keep (pi 1.6.0's ``prepareCompaction``); when to compact.

The plan is made over pi's projection of the path (:mod:`pi_lsp.session.projection`): the
previous compaction, the range it kept, everything after it, each entry as its latest
``context_edit`` leaves it. The range the previous compaction kept opens the summarized range
(pi v0.58.3 dropped it silently; pi_lsp's decision D2 fixed that, and pi 1.6.0 now does the
same). System messages are never summarized. The cut point, ``firstKeptEntryId``, the turn
prefix and ``tokensBefore`` (``estimateProjectedContextTokens``) are exactly pi 1.6.0's.

pi's ``shouldCompact`` and ``getContextUsage`` read the store but never write it: right after a
compaction the last provider usage still measures the old, longer context, so the usage is
unknown until an assistant message after the compaction reports a non-zero one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_lsp.compaction.cut_point import CutPoint, find_cut_point
from pi_lsp.compaction.models import (
    AlreadyCompactedError,
    CompactionDetails,
    CompactionPlan,
    CompactionSettings,
    ContextUsage,
    MessageRef,
    NothingToCompactError,
)
from pi_lsp.compaction.tokens import TokenCounter, assistant_usage, calculate_context_tokens
from pi_lsp.compaction.transcript import FileOps
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import Projected, current_system_message, project_path
from pi_lsp.session.records import Record


@dataclass(slots=True)
class CompactionPreparation:
    """pi's ``CompactionPreparation`` plus the entry ids behind each message."""

    first_kept_entry_id: str
    cut: CutPoint
    tokens_before: int
    previous_summary: str | None
    settings: CompactionSettings
    leaf_id: str | None
    """The path's last entry: a compaction is only appended if the leaf is still there."""
    messages_to_summarize: list[JsonObject] = field(default_factory=list)
    summarize_ids: list[str] = field(default_factory=list)
    turn_prefix_messages: list[JsonObject] = field(default_factory=list)
    turn_prefix_ids: list[str] = field(default_factory=list)
    previous_kept_count: int = 0
    """Leading messages of ``messages_to_summarize`` that the previous compaction kept (D2)."""
    file_ops: FileOps = field(default_factory=FileOps)

    @property
    def is_split_turn(self) -> bool:
        """The cut lies inside a turn; its beginning is summarized separately."""
        return self.cut.is_split_turn

    @property
    def nothing_to_summarize(self) -> bool:
        """Neither history nor a turn prefix to summarize: a request would be empty."""
        return not self.messages_to_summarize and not self.turn_prefix_messages

    def file_lists(self) -> CompactionDetails:
        """``computeFileLists`` of the file operations (the new entry's ``details``)."""
        return self.file_ops.lists()

    def to_plan(self) -> CompactionPlan:
        """The corpus-shaped report of this preparation."""

        def refs(messages: list[JsonObject], ids: list[str]) -> list[MessageRef]:
            return [
                MessageRef(entry_id=i, role=str(m.get("role")))
                for i, m in zip(ids, messages, strict=True)
            ]

        return CompactionPlan(
            first_kept_entry_id=self.first_kept_entry_id,
            is_split_turn=self.is_split_turn,
            tokens_before=self.tokens_before,
            previous_summary=self.previous_summary,
            settings=self.settings,
            messages_to_summarize=refs(self.messages_to_summarize, self.summarize_ids),
            turn_prefix_messages=refs(self.turn_prefix_messages, self.turn_prefix_ids),
            previous_kept_count=self.previous_kept_count,
            file_ops=self.file_ops.to_out(),
            file_lists=self.file_lists(),
        )


def last_assistant_usage(path: Sequence[Record]) -> JsonObject | None:
    """pi's ``getLastAssistantUsage``: usage of the last completed assistant on the path."""
    for index in range(len(path) - 1, -1, -1):
        record = path[index]
        if record.type == "message" and record.role == "assistant":
            usage = assistant_usage(record.value["message"])
            if usage is not None:
                return usage
    return None


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
    previous_record = path[at] if at >= 0 and projected[0].messages else None
    start = 1 if previous_record is not None else 0
    cut = find_cut_point(
        projected, start, len(projected), settings.keep_recent_tokens, counter.count_projected
    )
    if cut.first_kept_index >= len(projected):
        return None
    prep = CompactionPreparation(
        first_kept_entry_id=projected[cut.first_kept_index].record.id,
        cut=cut,
        tokens_before=projected_tokens(projected, window, counter),
        previous_summary=(
            previous_record.value.get("summary") if previous_record is not None else None
        ),
        settings=settings,
        leaf_id=path[-1].id,
    )
    # File operations in pi's order: earlier details, summarized history, turn prefix.
    if previous_record is not None and not previous_record.value.get("fromHook"):
        prep.file_ops.add_details(previous_record.value.get("details"))
    summarized, ids, ops = prep.messages_to_summarize, prep.summarize_ids, prep.file_ops
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    if previous_record is not None:
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

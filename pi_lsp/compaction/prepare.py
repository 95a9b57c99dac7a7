"""What a compaction would summarize and keep (pi's ``prepareCompaction`` with the D2 fix). Pure.

pi v0.58.3 summarizes only the entries after the previous compaction, so what that compaction
had kept verbatim (from its ``firstKeptEntryId`` up to it) silently leaves the context at the
next compaction. Here those kept messages open the summarized range instead (decision D2).
The cut point, ``firstKeptEntryId``, the turn prefix and ``tokensBefore`` are exactly pi's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pi_lsp.compaction.counter import TokenCounter
from pi_lsp.compaction.cut_point import CutPoint, find_cut_point
from pi_lsp.compaction.entry_messages import summary_message
from pi_lsp.compaction.errors import AlreadyCompactedError, NothingToCompactError
from pi_lsp.compaction.file_ops import FileOps
from pi_lsp.compaction.models import (
    CompactionDetails,
    CompactionPlan,
    CompactionSettings,
    MessageRef,
)
from pi_lsp.compaction.tokens import assistant_usage, calculate_context_tokens
from pi_lsp.session import SessionStore
from pi_lsp.session.context import entry_message
from pi_lsp.session.jsonl import JsonObject
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


def last_compaction_index(path: Sequence[Record]) -> int:
    """Index of the last compaction entry on the path, or -1."""
    for index in range(len(path) - 1, -1, -1):
        if path[index].type == "compaction":
            return index
    return -1


def previous_kept_start(path: Sequence[Record], compaction_index: int) -> int | None:
    """Where the verbatim part a compaction kept begins on the path, or None if it kept none."""
    if compaction_index < 0:
        return None
    first_kept = path[compaction_index].value.get("firstKeptEntryId")
    for index in range(compaction_index - 1, -1, -1):
        if path[index].id == first_kept:
            return index
    return None


def last_assistant_usage(path: Sequence[Record]) -> JsonObject | None:
    """pi's ``getLastAssistantUsage``: usage of the last completed assistant on the path."""
    for index in range(len(path) - 1, -1, -1):
        record = path[index]
        if record.type == "message" and record.role == "assistant":
            usage = assistant_usage(record.value["message"])
            if usage is not None:
                return usage
    return None


def tokens_before(path: Sequence[Record], start: int, count: Callable[[Record], int]) -> int:
    """``estimateContextTokens`` of the messages of ``path[start:]`` without building them."""
    for index in range(len(path) - 1, start - 1, -1):
        record = path[index]
        if record.type == "message" and record.role == "assistant":
            usage = assistant_usage(record.value["message"])
            if usage is not None:
                trailing = sum(count(r) for r in path[index + 1 :])
                return calculate_context_tokens(usage) + trailing
    return sum(count(r) for r in path[start:])


def _collect(
    records: Sequence[Record],
    to_message: Callable[[Record], JsonObject | None],
    messages: list[JsonObject],
    ids: list[str],
    file_ops: FileOps,
) -> None:
    """Append the messages of ``records`` and record their file operations."""
    for record in records:
        message = to_message(record)
        if message is not None:
            messages.append(message)
            ids.append(record.id)
            if record.role == "assistant":
                file_ops.add_message(message)


def prepare_compaction(
    path: Sequence[Record], settings: CompactionSettings, counter: TokenCounter | None = None
) -> CompactionPreparation | None:
    """Prepare compacting a root-first path; None when its last entry is a compaction (or empty).

    ``counter`` sizes entries (default: chars4, pi's estimate) and keeps its counts for reuse.
    The path may be the full branch or just :func:`compaction_window` of it (same result).
    """
    if not path or path[-1].type == "compaction":
        return None
    count = (counter if counter is not None else TokenCounter()).count_record
    previous = last_compaction_index(path)
    start = previous + 1
    cut = find_cut_point(path, start, len(path), settings.keep_recent_tokens, count)
    prep = CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_index].id,
        cut=cut,
        tokens_before=tokens_before(path, max(previous, 0), count),
        previous_summary=path[previous].value.get("summary") if previous >= 0 else None,
        settings=settings,
        leaf_id=path[-1].id,
    )
    # File operations in pi's order: earlier details, summarized history, turn prefix.
    if previous >= 0 and not path[previous].value.get("fromHook"):
        prep.file_ops.add_details(path[previous].value.get("details"))
    summarized, ids, ops = prep.messages_to_summarize, prep.summarize_ids, prep.file_ops
    kept_from = previous_kept_start(path, previous)
    if kept_from is not None:  # D2: what the previous compaction kept is summarized now
        _collect(path[kept_from:previous], entry_message, summarized, ids, ops)
        prep.previous_kept_count = len(summarized)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    _collect(path[start:history_end], summary_message, summarized, ids, ops)
    if cut.is_split_turn:
        prefix = path[cut.turn_start_index : cut.first_kept_index]
        _collect(prefix, summary_message, prep.turn_prefix_messages, prep.turn_prefix_ids, ops)
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

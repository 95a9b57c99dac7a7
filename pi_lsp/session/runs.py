"""A path's entries with their messages laid end to end: the store's cached runs, a projection.

:class:`Spine` is how :class:`~pi_lsp.session.context.ContextBuilder` keeps a path: the records
root-first and, laid end to end, the messages each contributes before edits, with running counts
so any stretch's messages are one slice. :class:`ProjectedRun` is pi 1.6.0's projection of a
context (:func:`~pi_lsp.session.projection.project_path`: the compaction, its kept range, what
follows) in the same flat form, which is what a compaction preparation reads. The projection
stays the definition (:meth:`ProjectedRun.of_projected`); :func:`path_run` and
:func:`spine_run` are faster ways to the same run when no ``context_edit``, and no system
message or older compaction in a kept range, makes the projection differ from the entries'
own messages (``tests/unit/compaction/test_prepare_fast_path.py`` checks them against it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.jsonl import JsonObject, Record
from pi_lsp.session.messages import ContextMessage
from pi_lsp.session.projection import Projected, entry_messages, is_system, project_path


class Spine:
    """One run of a path, root-first, with every entry's messages laid end to end.

    ``records[i + 1]``'s parent is ``records[i]``; ``ends[i]`` is how many messages
    ``records[:i]`` contribute before edits and ``edits[i]`` how many ``context_edit`` entries
    they hold, so the messages of any stretch are one slice and "is an edit in it" one
    subtraction.
    """

    __slots__ = ("edits", "ends", "ids", "messages", "pos", "records")

    def __init__(self, records: list[Record]) -> None:
        self.records: list[Record] = []
        self.pos: dict[str, int] = {}
        self.messages: list[ContextMessage] = []
        self.ids: list[str] = []
        self.ends = [0]
        self.edits = [0]
        self.extend(records)

    def at(self, record: Record) -> int | None:
        """The position of ``record`` in the run, or None when it is not in it."""
        index = self.pos.get(record.id)
        return index if index is not None and self.records[index] is record else None

    def extend(self, records: list[Record]) -> None:
        """Append root-first records whose first one is a child of the last one."""
        pos, ids, ends, edits = self.pos, self.ids, self.ends, self.edits
        messages: list[Any] = self.messages  # plain JSON typed as pi's messages, as in context
        at = len(self.records)
        self.records.extend(records)
        count = len(messages)
        edited = edits[-1]
        for record in records:
            entry_id = record.id
            pos[entry_id] = at
            at += 1
            kind = record.type
            message = record.value.get("message") if kind == "message" else None
            if isinstance(message, dict) and message.get("content") is not None:
                messages.append(message)  # the common case, as entry_messages would return it
                ids.append(entry_id)
                count += 1
            else:
                for message in entry_messages(record):
                    messages.append(message)
                    ids.append(entry_id)
                    count += 1
                edited += kind == "context_edit"
            ends.append(count)
            edits.append(edited)

    def prefix(self, length: int) -> Spine:
        """A new spine holding ``records[:length]`` (nothing is parsed again)."""
        copy = Spine([])
        records = copy.records = self.records[:length]
        copy.pos = {record.id: index for index, record in enumerate(records)}
        end = self.ends[length]
        copy.messages, copy.ids = self.messages[:end], self.ids[:end]
        copy.ends, copy.edits = self.ends[: length + 1], self.edits[: length + 1]
        return copy


@dataclass(slots=True)
class ProjectedRun:
    """pi's projection of a context's entries, laid flat.

    Entry ``i`` is ``records[i]`` and says ``messages[ends[i]:ends[i + 1]]`` (``ids`` names
    each message's entry).
    With a compaction, ``records[0]`` is it and ``records[1:after]`` its kept range (else
    ``after`` is 0); ``edited`` holds the entries whose messages differ from what they say on
    their own (their token counts are not cached).
    """

    records: list[Record]
    messages: list[JsonObject]
    ids: list[str]
    ends: list[int]
    after: int = 0
    edited: frozenset[int] = field(default_factory=frozenset)

    @classmethod
    def of_projected(cls, entries: Sequence[Projected], after: int = 0) -> ProjectedRun:
        """The run of projected entries (the definition; any projection, edited or not)."""
        messages: list[JsonObject] = []
        ids: list[str] = []
        ends = [0]
        edited = []
        for index, entry in enumerate(entries):
            messages.extend(entry.messages)
            ids.extend([entry.record.id] * len(entry.messages))
            ends.append(len(messages))
            if entry.edited:
                edited.append(index)
        return cls([e.record for e in entries], messages, ids, ends, after, frozenset(edited))


class ProjectedWindow(list[Record]):
    """Root-first records from where a context begins, with their run when it is known.

    What the store's context cache hands a compaction preparation, so it need not project
    again; once the list changes (another length or last entry) :meth:`run` is None.
    """

    __slots__ = ("_leaf", "_run", "_size")

    def __init__(self, records: list[Record], run: ProjectedRun | None = None) -> None:
        super().__init__(records)
        self._run = run
        self._size = len(records)
        self._leaf = records[-1] if records else None

    def run(self) -> ProjectedRun | None:
        """The run given with the records, while the list still holds them."""
        if self._run is None or len(self) != self._size or self[-1] is not self._leaf:
            return None
        return self._run


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


def window_run(window: Sequence[Record], at: int) -> ProjectedRun:
    """The run of a window (a path from where its context begins; ``at``: its compaction or -1).

    :func:`path_run` when it applies, else the projection itself.
    """
    run = path_run(window, at)
    if run is not None:
        return run
    projected = project_path(window)
    after = len(projected) - (len(window) - 1 - at) if at >= 0 else 0
    return ProjectedRun.of_projected(projected, after)


def path_run(window: Sequence[Record], at: int) -> ProjectedRun | None:
    """The run of a window without projecting it; None when the projection would differ.

    That is when a ``context_edit`` lies in the window, or a system message or an older
    compaction in the compaction's kept range ``window[:at]``.
    """
    if at >= 0:
        kept = window[:at]
        if not plain_kept(kept):
            return None
        records = [window[at], *kept, *window[at + 1 :]]
    else:
        records = list(window)
    messages: list[JsonObject] = []
    ids: list[str] = []
    ends = [0]
    append, add_id, end = messages.append, ids.append, ends.append
    count = 0
    for record in records:
        kind = record.type
        message = record.value.get("message") if kind == "message" else None
        if isinstance(message, dict) and message.get("content") is not None:
            append(message)
            add_id(record.id)
            count += 1
        elif kind == "context_edit":
            return None
        else:
            for message in entry_messages(record):
                append(message)
                add_id(record.id)
                count += 1
        end(count)
    return ProjectedRun(records, messages, ids, ends, at + 1 if at >= 0 else 0)


def plain_kept(kept: Sequence[Record]) -> bool:
    """The projection takes this kept range as it is: no system message, no older compaction."""
    return not any(record.type == "compaction" or is_system(record) for record in kept)


def spine_run(spine: Spine, at: int | None, kept_from: int | None, end: int) -> ProjectedRun | None:
    """The run of the context ending at ``spine.records[end - 1]``, sliced from the spine.

    ``at`` is the context's compaction on the spine (None: the context starts at the spine's
    root, ``spine.records[0]``), ``kept_from`` where its kept range begins (None: it keeps
    nothing), which must hold no system message or compaction (:func:`plain_kept`). None when
    a ``context_edit`` makes the projection differ.
    """
    ends, edits = spine.ends, spine.edits
    records, ids = spine.records, spine.ids
    messages: list[Any] = spine.messages  # the store's messages are plain JSON (see Spine)
    if at is None:
        if edits[end]:
            return None
        high = ends[end]
        return ProjectedRun(records[:end], messages[:high], ids[:high], ends[: end + 1])
    begin = at if kept_from is None else kept_from
    if edits[end] != edits[begin]:
        return None
    low, head, tail, high = ends[begin], ends[at], ends[at + 1], ends[end]
    size = tail - head
    out: list[Any] = messages[head:tail]
    out += messages[low:head]
    out += messages[tail:high]
    names = ids[head:tail] + ids[low:head] + ids[tail:high]
    kept_shift = size - low
    after_shift = size + (head - low) - tail
    offsets = [0, size]
    offsets += [e + kept_shift for e in ends[begin + 1 : at + 1]]
    offsets += [e + after_shift for e in ends[at + 2 : end + 1]]
    run_records = [records[at], *records[begin:at], *records[at + 1 : end]]
    return ProjectedRun(run_records, out, names, offsets, 1 + at - begin)

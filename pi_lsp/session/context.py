"""The model context at a leaf (spec §3.1): pi 1.6.0's ``buildSessionContext``, built once.

:func:`build_context` is the definition: over the root-first path it takes the thinking level
and model from the last changes, and projects the entries as pi 1.6.0 does
(:mod:`pi_lsp.session.projection`): with a compaction on the path, its system message and
summary, then the entries kept verbatim from ``firstKeptEntryId`` up to it (minus system
messages), then everything after it, each one as changed by the latest ``context_edit`` aimed at
it. :class:`ContextBuilder` is how a store evaluates it: the same result from the settings the
index inherited per entry and one cached path, so appends and branching along a path cost a
walk to that path and two list slices (``tests/unit/session/test_context_builder.py`` checks it
against the definition). :func:`render_context` prints a context as a terminal transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.entries import ContextOut, ModelOut, known, message_as
from pi_lsp.session.jsonl import Record
from pi_lsp.session.messages import AssistantMessage, ContextMessage
from pi_lsp.session.projection import (
    Projected,
    context_records,
    entry_messages,
    is_system,
    message_preview,
    project,
)
from pi_lsp.session.runs import ProjectedWindow, Spine, plain_kept, spine_run
from pi_lsp.session.tree import path_to_root


@dataclass(slots=True)
class SessionContext:
    """What the model sees at a leaf: pi's ``{messages, thinkingLevel, model}``.

    ``thinking_level`` is whatever the last ``thinking_level_change`` on the path holds (a string
    for every file pi writes), ``"off"`` when there is none.
    """

    messages: list[ContextMessage] = field(default_factory=list)
    """Agent messages in order; ``message`` payloads are shared with the store, not copied."""
    entry_ids: list[str] = field(default_factory=list)
    """Id of the entry each message came from (the compaction's id for its summary)."""
    thinking_level: Any = "off"
    model: ModelOut | None = None
    """``{"provider", "modelId"}`` from the last model change or assistant message on the path."""
    has_thinking_entry: bool = False
    """True when a ``thinking_level_change`` lies on the path (pi then uses it, not a default)."""
    edited_ids: set[str] = field(default_factory=set)
    """Entries whose messages a ``context_edit`` changed (their token counts are not cached)."""

    def to_json(self) -> ContextOut:
        """The corpus ``context`` field shape."""
        return ContextOut(
            messages=self.messages, thinkingLevel=self.thinking_level, model=self.model
        )


def _scan_settings(context: SessionContext, record: Record) -> None:
    value = known(record)
    if value is None:
        return
    if value["type"] == "thinking_level_change":
        context.thinking_level = value.get("thinkingLevel")
        context.has_thinking_entry = True
    elif value["type"] == "model_change":
        context.model = {"provider": value.get("provider"), "modelId": value.get("modelId")}
    elif (message := message_as(record, AssistantMessage)) is not None:
        context.model = {"provider": message.get("provider"), "modelId": message.get("model")}


def build_context(path: list[Record]) -> SessionContext:
    """pi's ``buildSessionContext`` for a root-first path.

    Settings are found by scanning back from the leaf (the last change wins), so only the entries
    that end up in the context, plus at most two settings entries, are ever parsed.
    """
    context = SessionContext()
    compaction_at = thinking_at = model_at = -1
    for index in range(len(path) - 1, -1, -1):
        record = path[index]
        kind = record.type
        if kind == "compaction" and compaction_at < 0:
            compaction_at = index
        elif kind == "thinking_level_change" and thinking_at < 0:
            thinking_at = index
        elif model_at < 0 and (
            kind == "model_change" or (kind == "message" and record.role == "assistant")
        ):
            model_at = index
        if compaction_at >= 0 and thinking_at >= 0 and model_at >= 0:
            break
    for index in (thinking_at, model_at):
        if index >= 0:
            _scan_settings(context, path[index])
    _emit(context, project(context_records(path)))
    return context


def _emit(context: SessionContext, projected: Iterable[Projected]) -> None:
    """Lay the projected entries' messages end to end in ``context``.

    The projection's plain JSON becomes pi's ``AgentMessage`` here: the context is where the
    session hands messages out, typed (unvalidated, as pi types ``JSON.parse`` output).
    """
    messages: list[Any] = context.messages
    for entry in projected:
        entry_id = entry.record.id
        if entry.edited:
            context.edited_ids.add(entry_id)
        for message in entry.messages:
            messages.append(message)
            context.entry_ids.append(entry_id)


def _is_root(record: Record) -> bool:
    parent = record.parent_id
    return parent is None or parent == record.id


def _parent(by_id: Mapping[str, Record], record: Record) -> Record | None:
    parent = record.parent_id
    return by_id.get(parent) if parent is not None else None


class ContextBuilder:
    """The model context at any leaf of one session: :func:`build_context`, incrementally.

    Keeps the last few paths it walked as :class:`Spine` runs, each from where a context
    starts down to a leaf. A leaf on one of them, or below one, costs the walk from the leaf to
    the run plus two list slices: the latest compaction's summary and kept range (built once
    per compaction) followed by the messages after the compaction. So appends, branching back
    and forth between recent leaves, and new turns after branching are cheap whatever the depth;
    only entries some context needs are parsed. A ``context_edit`` within the context, or
    settings the index could not inherit (duplicate ids, orphans), take the full projection
    instead. Every call returns fresh lists; message payloads are shared with the store.
    """

    MAX_SPINES = 4
    """Paths kept ready (the least recently used is dropped beyond)."""
    MAX_HEADS = 64
    """Compactions whose summary + kept range are kept ready (all are dropped beyond)."""

    def __init__(self, by_id: Mapping[str, Record], reliable: Callable[[], bool]) -> None:
        self._by_id = by_id
        self._reliable = reliable
        self._spines: list[Spine] = []
        self._heads: dict[str, tuple[list[ContextMessage], list[str]]] = {}
        self._plain: dict[str, bool] = {}
        """Per compaction: its kept range is what the projection shows (see ``plain_kept``)."""

    def clear(self) -> None:
        """Forget what was walked (the index changed in a way appends do not cover)."""
        self._spines.clear()
        self._heads.clear()
        self._plain.clear()

    def build(self, leaf_id: str | None) -> SessionContext:
        """pi's ``buildSessionContext`` at ``leaf_id`` (empty for None or an unknown id)."""
        by_id = self._by_id
        leaf = by_id.get(leaf_id) if leaf_id is not None else None
        if leaf is None:
            return SessionContext()
        settings = leaf.settings
        if settings is None or not self._reliable():
            return build_context(path_to_root(by_id, leaf.id))
        thinking, model, compaction_id = settings
        context = SessionContext()
        for source in (thinking, model):
            if source is not None:
                _scan_settings(context, by_id[source])
        spine, at, kept_from, end = self._locate(leaf, compaction_id)
        if at is None:
            if spine.edits[end]:
                _emit(context, project(spine.records[:end]))
            else:
                context.messages = spine.messages[: spine.ends[end]]
                context.entry_ids = spine.ids[: spine.ends[end]]
            return context
        compaction = spine.records[at]
        if spine.edits[end] != spine.edits[at if kept_from is None else kept_from]:
            kept_records = spine.records[kept_from:at] if kept_from is not None else []
            records = [compaction, *(r for r in kept_records if not is_system(r))]
            _emit(context, project([*records, *spine.records[at + 1 : end]]))
            return context
        messages, ids = self._head(spine, compaction, kept_from)
        low, high = spine.ends[at + 1], spine.ends[end]
        context.messages = messages + spine.messages[low:high]
        context.entry_ids = ids + spine.ids[low:high]
        return context

    def run(self, leaf_id: str) -> ProjectedWindow | None:
        """The records the context at ``leaf_id`` is made of, root-first, and their projection.

        The records run from the compaction's first kept entry (the compaction itself when it
        keeps nothing above it) or the root to the leaf. Sliced from the cached spine; None when
        the projection needs the full walk (an unknown leaf, unreliable settings, a
        ``context_edit`` in range, a system message or compaction in the kept range).
        """
        leaf = self._by_id.get(leaf_id)
        settings = leaf.settings if leaf is not None else None
        if leaf is None or settings is None or not self._reliable():
            return None
        spine, at, kept_from, end = self._locate(leaf, settings[2])
        begin = 0 if at is None else at if kept_from is None else kept_from
        if at is not None:
            compaction_id = spine.records[at].id
            plain = self._plain.get(compaction_id)
            if plain is None:
                if len(self._plain) >= self.MAX_HEADS:
                    self._plain.clear()
                plain = self._plain[compaction_id] = plain_kept(spine.records[begin:at])
            if not plain:
                return None
        run = spine_run(spine, at, kept_from, end)
        return ProjectedWindow(spine.records[begin:end], run) if run is not None else None

    def _locate(
        self, leaf: Record, compaction_id: str | None
    ) -> tuple[Spine, int | None, int | None, int]:
        """The spine holding the leaf's context, and positions on it.

        Those of the compaction and of its kept range (None: none), and the leaf's plus one.
        """
        if compaction_id is None:
            spine = self._reach(leaf, None, None)
            spine, _ = self._ancestor(spine, None, leaf)
            return spine, None, None, spine.pos[leaf.id] + 1
        compaction = self._by_id[compaction_id]
        first_kept = compaction.value.get("firstKeptEntryId")
        spine = self._reach(leaf, compaction_id, first_kept)
        spine, _ = self._ancestor(spine, compaction_id, leaf)
        kept = None
        if isinstance(first_kept, str):
            spine, kept = self._ancestor(spine, first_kept, compaction)
        kept_from = spine.pos[kept.id] if kept is not None else None
        return spine, spine.pos[compaction_id], kept_from, spine.pos[leaf.id] + 1

    def _head(
        self, spine: Spine, compaction: Record, kept_from: int | None
    ) -> tuple[list[ContextMessage], list[str]]:
        """The compaction's messages, then those of its kept range (no system, no compaction)."""
        head = self._heads.get(compaction.id)
        if head is not None:
            return head
        messages: list[Any] = list(entry_messages(compaction))  # typed as in _emit
        ids = [compaction.id] * len(messages)
        if kept_from is not None:
            for record in spine.records[kept_from : spine.pos[compaction.id]]:
                if record.type == "compaction" or is_system(record):
                    continue
                for message in entry_messages(record):
                    messages.append(message)
                    ids.append(record.id)
        if len(self._heads) >= self.MAX_HEADS:
            self._heads.clear()
        self._heads[compaction.id] = (messages, ids)
        return messages, ids

    def _reach(self, leaf: Record, compaction_id: str | None, first_kept: object) -> Spine:
        """A spine holding ``leaf``, now the most recent one.

        Walks up from the leaf to a spine or to where its context starts: the compaction's first
        kept entry (found above the compaction), the compaction itself when that entry is not
        above it, or a root. Joining a spine at its last entry extends it; joining it higher up
        starts a new spine with the shared part copied, so the other branch stays ready.
        """
        spines = self._spines
        for index, spine in enumerate(spines):
            if spine.at(leaf) is not None:
                if index:
                    spines.insert(0, spines.pop(index))
                return spine
        get = self._by_id.get
        new: list[Record] = []
        append = new.append
        current: Record | None = leaf
        joined: tuple[Spine, int] | None = None
        passed = False
        while current is not None:
            if spines:
                for spine in spines:
                    at = spine.at(current)
                    if at is not None:
                        joined = (spine, at)
                        break
                if joined is not None:
                    break
            append(current)
            entry_id = current.id
            parent = current.parent_id
            if entry_id == compaction_id:
                passed = True
            if parent is None or parent == entry_id or (passed and entry_id == first_kept):
                break
            current = get(parent)
        new.reverse()
        if joined is None:
            spine = Spine(new)
        else:
            spine, at = joined
            spines.remove(spine)
            if at + 1 < len(spine.records):
                spines.insert(0, spine)  # the branch left behind stays ready
                spine = spine.prefix(at + 1)
            spine.extend(new)
        spines.insert(0, spine)
        del spines[self.MAX_SPINES :]
        return spine

    def _ancestor(
        self, spine: Spine, entry_id: str | None, below: Record
    ) -> tuple[Spine, Record | None]:
        """The ancestor ``entry_id`` of spine entry ``below`` (None: the root), on the spine.

        Extends the spine upwards (replacing it) when the entry lies above its first record;
        None when the entry is not an ancestor.
        """
        limit = spine.pos[below.id]
        at = spine.pos.get(entry_id) if entry_id is not None else None
        if at is not None:
            return spine, (spine.records[at] if at <= limit else None)
        first = spine.records[0]
        if entry_id is None and _is_root(first):
            return spine, first
        up: list[Record] = []
        current: Record | None = first
        while current is not None and not _is_root(current):
            current = _parent(self._by_id, current)
            if current is None:
                break
            up.append(current)
            if current.id == entry_id:
                break
        if not up:
            return spine, None
        up.reverse()
        grown = Spine([*up, *spine.records])
        self._spines[self._spines.index(spine)] = grown
        return grown, (up[0] if entry_id is None or up[0].id == entry_id else None)


def render_context(context: SessionContext) -> str:
    """A transcript of a context, one line per message, then model and thinking level."""
    lines = [f"[{m.get('role')}] {message_preview(m)}" for m in context.messages]
    model = context.model
    where = f"{model.get('provider')}/{model.get('modelId')}" if model else "(none)"
    lines.append(
        f"-- {len(context.messages)} messages; model {where}; thinking {context.thinking_level}"
    )
    return "".join(line + "\n" for line in lines)

"""Building the model context from a leaf (spec §3.1): pure functions over the entry index.

``build_context`` walks from the leaf to the root, takes the thinking level and model from the
path, and projects the entries as pi 1.6.0 does (:mod:`pi_lsp.session.projection`): with a
compaction on the path, its system message and summary, then the entries kept verbatim from
``firstKeptEntryId`` up to it (minus system messages), then everything after it, each one as
changed by the latest ``context_edit`` aimed at it. ``ContextCache`` makes the common case
incremental: after appends to the current leaf only the new entries are looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import (
    Projected,
    context_records,
    entry_messages,
    is_system,
    project,
)
from pi_lsp.session.records import Record, Settings


@dataclass(slots=True)
class SessionContext:
    """What the model sees at a leaf: pi's ``{messages, thinkingLevel, model}``.

    ``thinking_level`` is whatever the last ``thinking_level_change`` on the path holds (a string
    for every file pi writes), ``"off"`` when there is none.
    """

    messages: list[JsonObject] = field(default_factory=list)
    """Agent messages in order; ``message`` payloads are shared with the store, not copied."""
    entry_ids: list[str] = field(default_factory=list)
    """Id of the entry each message came from (the compaction's id for its summary)."""
    thinking_level: Any = "off"
    model: JsonObject | None = None
    """``{"provider", "modelId"}`` from the last model change or assistant message on the path."""
    has_thinking_entry: bool = False
    """True when a ``thinking_level_change`` lies on the path (pi then uses it, not a default)."""
    edited_ids: set[str] = field(default_factory=set)
    """Entries whose messages a ``context_edit`` changed (their token counts are not cached)."""

    def to_json(self) -> JsonObject:
        """The corpus ``context`` field shape."""
        return {
            "messages": self.messages,
            "thinkingLevel": self.thinking_level,
            "model": self.model,
        }


def path_to_root(by_id: Mapping[str, Record], leaf_id: str | None) -> list[Record]:
    """Entries from the root to ``leaf_id`` (pi's ``getBranch``); stops at a missing parent.

    A parent cycle (only possible in a damaged file) ends the walk instead of looping forever.
    """
    path: list[Record] = []
    append = path.append
    get = by_id.get
    current = get(leaf_id) if leaf_id is not None else None
    limit = len(by_id)
    while current is not None:
        append(current)
        if len(path) > limit:
            return _path_without_cycle(path)
        parent = current.parent_id
        current = get(parent) if parent is not None else None
    path.reverse()
    return path


def _path_without_cycle(path: list[Record]) -> list[Record]:
    seen: set[str] = set()
    kept = []
    for record in path:
        if record.id in seen:
            break
        seen.add(record.id)
        kept.append(record)
    kept.reverse()
    return kept


def entry_message(record: Record) -> JsonObject | None:
    """The first message an entry contributes to a context before edits, or None."""
    messages = entry_messages(record)
    return messages[-1] if messages else None


def _scan_settings(context: SessionContext, record: Record) -> None:
    kind = record.type
    if kind == "thinking_level_change":
        context.thinking_level = record.value.get("thinkingLevel")
        context.has_thinking_entry = True
    elif kind == "model_change":
        value = record.value
        context.model = {"provider": value.get("provider"), "modelId": value.get("modelId")}
    elif kind == "message" and record.role == "assistant":
        message = record.value["message"]
        context.model = {"provider": message.get("provider"), "modelId": message.get("model")}


ROOT_SETTINGS: Settings = (None, None, None)


def inherit_settings(record: Record, base: Settings) -> Settings:
    """The settings at ``record`` given those at its parent (computed once, at indexing)."""
    kind = record.type
    if kind == "thinking_level_change":
        return (record.id, base[1], base[2])
    if kind == "model_change" or (kind == "message" and record.role == "assistant"):
        return (base[0], record.id, base[2])
    if kind == "compaction":
        return (base[0], base[1], record.id)
    return base


def build_context_indexed(
    by_id: Mapping[str, Record], leaf: Record, settings: Settings
) -> SessionContext:
    """Same result as :func:`build_context`, walking only what ends up in the context.

    ``settings`` (from :func:`inherit_settings`) name the entries that hold the thinking level,
    the model and the latest compaction, so a compacted path is walked back only to the first
    kept entry instead of to the root.
    """
    thinking, model, compaction_id = settings
    context = SessionContext()
    for source in (thinking, model):
        if source is not None:
            _scan_settings(context, by_id[source])
    if compaction_id is None:
        _emit_records(context, path_to_root(by_id, leaf.id))
        return context
    compaction = by_id[compaction_id]
    after: list[Record] = []
    current: Record | None = leaf
    while current is not None and current is not compaction:
        after.append(current)
        current = by_id.get(current.parent_id) if current.parent_id is not None else None
    first_kept = compaction.value.get("firstKeptEntryId")
    kept: list[Record] = []
    parent = compaction.parent_id
    current = by_id.get(parent) if parent is not None else None
    while current is not None:
        kept.append(current)
        if current.id == first_kept:
            break
        current = by_id.get(current.parent_id) if current.parent_id is not None else None
        if len(kept) > len(by_id):
            current = None
    if current is None:
        kept = []  # first kept entry not on the path: summary and later entries only
    kept.reverse()
    after.reverse()
    records = [compaction, *(r for r in kept if not is_system(r)), *after]
    _emit_records(context, records)
    return context


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
    _emit_records(context, context_records(path))
    return context


def _emit_records(context: SessionContext, records: list[Record]) -> None:
    """Project ``records`` (pi's ``buildContextEntries`` output) into ``context``.

    Without a ``context_edit`` among them (the common case) the messages are taken straight
    from the entries, without building a projection.
    """
    if any(r.type == "context_edit" for r in records):
        _emit(context, project(records))
        return
    messages, ids = context.messages, context.entry_ids
    for index, record in enumerate(records):
        kind = record.type
        if kind == "message":
            message = record.value.get("message")
            if isinstance(message, dict) and message.get("content") is not None:
                messages.append(message)
                ids.append(record.id)
                continue
        elif kind == "compaction" and index > 0:
            continue
        for message in entry_messages(record):
            messages.append(message)
            ids.append(record.id)


def _emit(context: SessionContext, projected: Iterable[Projected]) -> None:
    for entry in projected:
        entry_id = entry.record.id
        if entry.edited:
            context.edited_ids.add(entry_id)
        for message in entry.messages:
            context.messages.append(message)
            context.entry_ids.append(entry_id)


REBUILDS = frozenset({"compaction", "context_edit"})
"""Entry types that change earlier messages of a context: appending one rebuilds it."""


class ContextCache:
    """The context of one leaf, extended in place when entries are appended below it."""

    MAX_STEPS = 256
    """Longest run of new entries applied incrementally before a full rebuild."""

    def __init__(self, build: Callable[[str | None], SessionContext]) -> None:
        self._build = build
        self._leaf: str | None = None
        self._context: SessionContext | None = None

    def clear(self) -> None:
        """Forget the cached context (the index changed in a way appends do not cover)."""
        self._leaf = None
        self._context = None

    def get(self, by_id: Mapping[str, Record], leaf_id: str | None) -> SessionContext:
        """The context at ``leaf_id``; a fresh copy the caller may keep."""
        context = self._advance(by_id, leaf_id)
        if context is None:
            context = self._build(leaf_id)
            self._leaf, self._context = leaf_id, context
        return SessionContext(
            messages=list(context.messages),
            entry_ids=list(context.entry_ids),
            thinking_level=context.thinking_level,
            model=context.model,
            has_thinking_entry=context.has_thinking_entry,
            edited_ids=set(context.edited_ids),
        )

    def _advance(self, by_id: Mapping[str, Record], leaf_id: str | None) -> SessionContext | None:
        cached = self._context
        if cached is None or leaf_id is None:
            return None
        if leaf_id == self._leaf:
            return cached
        new: list[Record] = []
        current = by_id.get(leaf_id)
        while current is not None and current.id != self._leaf and len(new) < self.MAX_STEPS:
            if current.type in REBUILDS:
                return None
            new.append(current)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
        if current is None or current.id != self._leaf:
            return None
        for record in reversed(new):
            _scan_settings(cached, record)
        new.reverse()
        _emit(cached, (Projected(r, entry_messages(r)) for r in new))
        self._leaf = leaf_id
        return cached

"""Building the model context from a leaf (spec §3.1): pure functions over the entry index.

``build_context`` walks from the leaf to the root, takes the thinking level and model from the
path, and, when a compaction lies on the path, emits its summary, then the entries kept verbatim
from ``firstKeptEntryId`` up to it, then everything after it. ``ContextCache`` makes the common
case incremental: after appends to the current leaf only the new entries are looked at.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.ids import parse_iso_ms
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.records import Record


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
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        parent = current.parent_id
        current = by_id.get(parent) if parent is not None else None
    path.reverse()
    return path


def entry_message(record: Record) -> JsonObject | None:
    """The agent message an entry contributes to a context, or None (spec §3.1 step 5)."""
    kind = record.type
    if kind == "message":
        message = record.value.get("message")
        return message if isinstance(message, dict) else None
    value = record.value
    if kind == "custom_message":
        out: JsonObject = {
            "role": "custom",
            "customType": value.get("customType"),
            "content": value.get("content"),
            "display": value.get("display"),
        }
        if "details" in value:
            out["details"] = value["details"]
        out["timestamp"] = _entry_ms(record)
        return out
    if kind == "branch_summary" and value.get("summary"):
        return {
            "role": "branchSummary",
            "summary": value["summary"],
            "fromId": value.get("fromId"),
            "timestamp": _entry_ms(record),
        }
    return None


def compaction_message(record: Record) -> JsonObject:
    """The ``compactionSummary`` message a compaction entry stands for."""
    value = record.value
    return {
        "role": "compactionSummary",
        "summary": value.get("summary"),
        "tokensBefore": value.get("tokensBefore"),
        "timestamp": _entry_ms(record),
    }


def _entry_ms(record: Record) -> Any:
    return parse_iso_ms(record.timestamp)


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


def build_context(path: list[Record]) -> SessionContext:
    """Pi's ``buildSessionContext`` for a root-first path."""
    context = SessionContext()
    compaction_at = -1
    for index, record in enumerate(path):
        _scan_settings(context, record)
        if record.type == "compaction":
            compaction_at = index
    if compaction_at < 0:
        _emit(context, path)
        return context
    compaction = path[compaction_at]
    context.messages.append(compaction_message(compaction))
    context.entry_ids.append(compaction.id)
    first_kept = compaction.value.get("firstKeptEntryId")
    kept_from = next((i for i in range(compaction_at) if path[i].id == first_kept), compaction_at)
    _emit(context, path[kept_from:compaction_at])
    _emit(context, path[compaction_at + 1 :])
    return context


def _emit(context: SessionContext, records: Iterable[Record]) -> None:
    for record in records:
        message = entry_message(record)
        if message is not None:
            context.messages.append(message)
            context.entry_ids.append(record.id)


class ContextCache:
    """The context of one leaf, extended in place when entries are appended below it."""

    MAX_STEPS = 256
    """Longest run of new entries applied incrementally before a full rebuild."""

    def __init__(self) -> None:
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
            context = build_context(path_to_root(by_id, leaf_id))
            self._leaf, self._context = leaf_id, context
        return SessionContext(
            messages=list(context.messages),
            entry_ids=list(context.entry_ids),
            thinking_level=context.thinking_level,
            model=context.model,
            has_thinking_entry=context.has_thinking_entry,
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
            if current.type == "compaction":
                return None
            new.append(current)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
        if current is None or current.id != self._leaf:
            return None
        for record in reversed(new):
            _scan_settings(cached, record)
        _emit(cached, reversed(new))
        self._leaf = leaf_id
        return cached

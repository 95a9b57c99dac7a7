"""Narrowing a record's entry: by the indexed type and role, with unknown types kept as read."""

from __future__ import annotations

from typing import Any

from pi_lsp.devtools.builders import assistant, message_entry, tool_result, user
from pi_lsp.session.entries import (
    KNOWN_TYPES,
    CompactionEntry,
    LabelEntry,
    entry_as,
    known,
    message_as,
    session_line,
    target_of,
)
from pi_lsp.session.jsonl import Record, dumps
from pi_lsp.session.messages import AssistantMessage, ToolResultMessage, UserMessage

BASE = {"id": "aaaaaaaa", "parentId": None, "timestamp": "2026-01-01T00:00:00.000Z"}


def record(value: dict[str, Any]) -> Record:
    return Record.from_value(value, dumps(value))


def test_known_types_are_the_schema_entry_types() -> None:
    union = session_line().json_schema()
    names = {
        schema["properties"]["type"]["const"]
        for schema in union["$defs"].values()
        if "id" in schema.get("properties", {}) and "parentId" in schema["properties"]
    }
    assert names == KNOWN_TYPES


def test_an_unknown_type_is_not_narrowed_and_stays_as_read() -> None:
    value = {"type": "future_kind", **BASE, "x": [1]}
    entry = record(value)
    assert known(entry) is None
    assert entry_as(entry, CompactionEntry) is None
    assert target_of(entry) is None
    assert entry.value == value and entry.value["type"] == "future_kind"


def test_entry_as_decides_by_the_indexed_type() -> None:
    compaction = record({"type": "compaction", **BASE, "summary": "s", "firstKeptEntryId": "b"})
    label = record({"type": "label", **BASE, "targetId": "bbbbbbbb", "label": "here"})
    narrowed = entry_as(compaction, CompactionEntry)
    assert narrowed is not None and narrowed["summary"] == "s"
    assert entry_as(compaction, LabelEntry) is None
    entry = known(label)
    assert entry is not None and entry["type"] == "label" and entry.get("label") == "here"


def test_message_as_decides_by_role() -> None:
    reply = record(message_entry("aaaaaaaa", None, assistant("hi")))
    result = record(message_entry("bbbbbbbb", "aaaaaaaa", tool_result("out", "c1")))
    assert message_as(reply, UserMessage) is None
    message = message_as(reply, AssistantMessage)
    assert message is not None and message["content"][0] == {"type": "text", "text": "hi"}
    narrowed = message_as(result, ToolResultMessage)
    assert narrowed is not None and narrowed["toolCallId"] == "c1"
    odd = record({"type": "custom", **BASE, "customType": "x", "message": user("q")})
    assert odd.role == "user" and message_as(odd, UserMessage) is None  # not a message entry


def test_target_of_reads_labels_and_edits_only() -> None:
    edit = record({"type": "context_edit", **BASE, "targetId": "bbbbbbbb", "replacement": None})
    bad = record({"type": "label", **BASE, "targetId": 7})
    other = record({"type": "custom", **BASE, "customType": "x", "targetId": "bbbbbbbb"})
    assert target_of(edit) == "bbbbbbbb"
    assert target_of(bad) is None
    assert target_of(other) is None

"""pi 1.6.0's session projection: which entries a context is made of, and what each one says.

``context_records`` is pi's ``buildContextEntries`` (the path, or with a compaction on it: that
compaction, then the kept range without its ``system`` messages, then everything after it);
``project`` is ``buildSessionProjection``: every entry becomes zero or more messages, and the
latest ``context_edit`` per target within those entries omits it (``replacement: null``) or
replaces its content. Context building, compaction planning and branch summaries all read
entries through these functions, so the three agree with each other and with pi.

What an entry says to a person is here too: :func:`entry_preview` and :func:`message_preview`
make the one-line previews of the tree view and the terminal transcripts. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pi_lsp.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    entry_as,
    known,
)
from pi_lsp.session.jsonl import JsonObject, Record
from pi_lsp.session.messages import (
    SystemMessage,
    content_text,
)
from pi_lsp.session.paths import parse_iso_ms

EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})
"""Roles whose content a ``context_edit`` replacement changes (summaries and system stay)."""


@dataclass(slots=True)
class Projected:
    """An entry of a projection and its messages (pi's ``ProjectedSessionEntry``)."""

    record: Record
    messages: list[JsonObject]
    edited: bool = False
    """True when ``messages`` differ from what the entry says on its own (an edit, or an older
    compaction that projects to nothing)."""


def _ms(record: Record) -> Any:
    """Epoch ms of the entry's time; None when unparsable (pi's ``NaN``, written as null)."""
    return parse_iso_ms(record.timestamp)


# The summary and custom messages take their fields as the entry holds them (unvalidated, as
# pi reads them: a field a foreign writer left out becomes null), the time from the record.


def compaction_message(record: Record, entry: CompactionEntry) -> JsonObject:
    """pi's ``createCompactionSummaryMessage`` for a compaction entry."""
    return {
        "role": "compactionSummary",
        "summary": entry.get("summary"),
        "tokensBefore": entry.get("tokensBefore"),
        "timestamp": _ms(record),
    }


def branch_summary_message(record: Record, entry: BranchSummaryEntry) -> JsonObject:
    """pi's ``createBranchSummaryMessage`` for a ``branch_summary`` entry."""
    return {
        "role": "branchSummary",
        "summary": entry.get("summary"),
        "fromId": entry.get("fromId"),
        "timestamp": _ms(record),
    }


def custom_message(record: Record, entry: CustomMessageEntry, content: Any) -> JsonObject:
    """pi's ``createCustomMessage`` for a ``custom_message`` entry."""
    out: JsonObject = {
        "role": "custom",
        "customType": entry.get("customType"),
        "content": content,
        "display": entry.get("display"),
    }
    if "details" in entry:
        out["details"] = entry["details"]
    out["timestamp"] = _ms(record)  # last, as pi's object literal has it
    return out


def message_of(entry: MessageEntry) -> JsonObject | None:
    """A ``message`` entry's message, with pi's repair of a null content; else None.

    The stored object is taken as the message it says it is, unvalidated, as pi reads it.
    """
    message: object = entry.get("message")
    if not isinstance(message, dict):
        return None
    if message.get("content") is None:
        role = message.get("role")
        if role == "system":
            message = {**message, "content": ""}
        elif role in ("user", "assistant", "toolResult"):
            message = {**message, "content": []}
    return message


def entry_messages(record: Record) -> list[JsonObject]:
    """pi's ``sessionEntryToContextMessages``: what one entry contributes before edits."""
    entry = known(record)
    if entry is None:
        return []
    if entry["type"] == "message":
        message = message_of(entry)
        return [message] if message is not None else []
    if entry["type"] == "custom_message":
        content = entry.get("content")
        return [custom_message(record, entry, [] if content is None else content)]
    if entry["type"] == "branch_summary":
        return [branch_summary_message(record, entry)] if entry.get("summary") else []
    if entry["type"] == "compaction":
        system: object = entry.get("systemMessage")
        summary = compaction_message(record, entry)
        if isinstance(system, dict) and system:
            return [system, summary]
        return [summary]
    return []


def apply_edit(messages: list[JsonObject], edit: ContextEditEntry | None) -> list[JsonObject]:
    """pi's ``projectContextEntry``: ``null`` omits, otherwise only the content changes."""
    if edit is None:
        return messages
    replacement: object = edit.get("replacement")
    if not isinstance(replacement, dict):
        return []
    content = replacement.get("content")
    out = []
    for message in messages:
        role = message.get("role")
        if role in EDITABLE_ROLES:
            new = content
            if role in ("assistant", "toolResult") and isinstance(content, str):
                new = [{"type": "text", "text": content}]
            message = {**message, "content": new}
        out.append(message)
    return out


def latest_edits(records: Iterable[Record]) -> dict[str, ContextEditEntry]:
    """The last ``context_edit`` per target among ``records`` (pi's edit map)."""
    edits: dict[str, ContextEditEntry] = {}
    for record in records:
        edit = entry_as(record, ContextEditEntry)
        if edit is not None:
            target: object = edit.get("targetId")
            if isinstance(target, str):
                edits[target] = edit
    return edits


def is_system(record: Record) -> bool:
    """A ``message`` entry holding a ``system`` message (pi's prompt state)."""
    return record.type == "message" and record.role == "system"


def context_records(path: Sequence[Record]) -> list[Record]:
    """pi's ``buildContextEntries`` over a root-first path."""
    at = -1
    for index in range(len(path) - 1, -1, -1):
        if path[index].type == "compaction":
            at = index
            break
    if at < 0:
        return list(path)
    compaction = path[at]
    entry = entry_as(compaction, CompactionEntry)
    first_kept = entry.get("firstKeptEntryId") if entry is not None else None
    kept_from = next((i for i in range(at) if path[i].id == first_kept), at)
    kept = [r for r in path[kept_from:at] if not is_system(r)]
    return [compaction, *kept, *path[at + 1 :]]


def project(records: Sequence[Record]) -> list[Projected]:
    """pi's ``buildSessionProjection`` over :func:`context_records` output.

    Only a compaction at index 0 (the newest) contributes; older ones that lie in its kept
    range project to nothing.
    """
    edits = latest_edits(records)
    out = []
    for index, record in enumerate(records):
        if record.type == "compaction" and index > 0:
            out.append(Projected(record, [], edited=True))
            continue
        edit = edits.get(record.id)
        messages = entry_messages(record)
        if edit is None:
            out.append(Projected(record, messages))
        else:
            out.append(Projected(record, apply_edit(messages, edit), edited=True))
    return out


def project_path(path: Sequence[Record]) -> list[Projected]:
    """The projection of a root-first path."""
    return project(context_records(path))


def current_system_message(messages: Iterable[Mapping[str, Any]]) -> SystemMessage | None:
    """pi-ai's ``getCurrentSystemMessage``: every system message replayed into one.

    Contents are joined, sections patched by name (``null`` removes one), tools resolved by
    name (``toolsRemoved`` then ``toolsAdded``); None when there is no prompt state at all.
    This is what a compaction stores as ``systemMessage``.
    """
    content: list[str] = []
    sections: dict[str, object] = {}
    tools: dict[str, object] = {}
    timestamp: object = None
    for item in messages:
        if item.get("role") != "system":
            continue
        message = cast(SystemMessage, item)
        if timestamp is None:
            timestamp = message.get("timestamp")
        text = content_text(message.get("content"))
        if text:
            content.append(text)
        patch = message.get("sections")
        for name, value in patch.items() if isinstance(patch, dict) else ():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for tool in message.get("toolsRemoved") or ():
            if isinstance(tool, dict):
                tools.pop(str(tool.get("name")), None)
        for tool in message.get("toolsAdded") or ():
            if isinstance(tool, dict):
                tools[str(tool.get("name"))] = tool
    if timestamp is None and not tools:
        return None
    out: JsonObject = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        out["sections"] = sections
    if tools:
        out["toolsAdded"] = list(tools.values())
    out["timestamp"] = 0 if timestamp is None else timestamp
    return cast(SystemMessage, out)


PREVIEW_CHARS = 80


def _one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def preview_text(content: Any) -> str:
    """Text of a string or of the text blocks of a content list, joined by spaces."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "toolCall":
                parts.append(f"{block.get('name')}(…)")
            elif kind == "image":
                parts.append("[image]")
        return " ".join(parts)
    return ""


def message_preview(message: Mapping[str, Any]) -> str:
    """One line describing an agent message."""
    role = message.get("role")
    if role == "bashExecution":
        return _one_line(f"$ {message.get('command', '')}")
    if role in ("branchSummary", "compactionSummary"):
        return _one_line(str(message.get("summary", "")))
    if role == "toolResult":
        return _one_line(f"{message.get('toolName')}: {preview_text(message.get('content'))}")
    return _one_line(preview_text(message.get("content")))


def entry_preview(record: Record) -> str:
    """One line describing an entry (the tree view's preview)."""
    value = known(record)
    if value is None:
        return record.type
    kind = value["type"]
    if kind == "message":
        message: object = value.get("message")
        return message_preview(message) if isinstance(message, dict) else ""
    if kind == "thinking_level_change":
        return f"thinking: {value.get('thinkingLevel')}"
    if kind == "model_change":
        return f"model: {value.get('provider')}/{value.get('modelId')}"
    if kind == "compaction" or kind == "branch_summary":
        return _one_line(str(value.get("summary", "")))
    if kind == "custom_message":
        return _one_line(preview_text(value.get("content")))
    if kind == "custom":
        return f"custom: {value.get('customType')}"
    if kind == "label":
        label = value.get("label")
        return (
            f"label {value.get('targetId')}: {label}"
            if label
            else f"unlabel {value.get('targetId')}"
        )
    if kind == "session_info":
        name: object = value.get("name")
        return f"name: {name}" if isinstance(name, str) and name.strip() else "name cleared"
    return kind

"""Short human-readable views of entries, trees and contexts (terminal output and tree previews)."""

from __future__ import annotations

from typing import Any

from pi_lsp.session.context import SessionContext
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.records import Record
from pi_lsp.session.tree import SessionTree

PREVIEW_CHARS = 80


def _one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def content_text(content: Any) -> str:
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


def message_preview(message: JsonObject) -> str:
    """One line describing an agent message."""
    role = message.get("role")
    if role == "bashExecution":
        return _one_line(f"$ {message.get('command', '')}")
    if role in ("branchSummary", "compactionSummary"):
        return _one_line(str(message.get("summary", "")))
    if role == "toolResult":
        return _one_line(f"{message.get('toolName')}: {content_text(message.get('content'))}")
    return _one_line(content_text(message.get("content")))


def entry_preview(record: Record) -> str:
    """One line describing an entry (the tree view's preview)."""
    value = record.value
    kind = record.type
    if kind == "message":
        message = value.get("message")
        return message_preview(message) if isinstance(message, dict) else ""
    if kind == "thinking_level_change":
        return f"thinking: {value.get('thinkingLevel')}"
    if kind == "model_change":
        return f"model: {value.get('provider')}/{value.get('modelId')}"
    if kind in ("compaction", "branch_summary"):
        return _one_line(str(value.get("summary", "")))
    if kind == "custom_message":
        return _one_line(content_text(value.get("content")))
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
        name = value.get("name")
        return f"name: {name}" if isinstance(name, str) and name.strip() else "name cleared"
    return kind


def _kind(record: Record) -> str:
    return record.role or record.type


def render_tree(tree: SessionTree, leaf_id: str | None) -> str:
    """The tree with branch guides; a linear run of entries stays at one indentation."""
    line_prefix: dict[str, str] = {}
    child_prefix: dict[str, str] = {}
    lines = []
    for node in tree.nodes:
        record = node.record
        own = child_prefix.get(record.id, "")
        kids = node.children
        for index, child in enumerate(kids):
            if len(kids) == 1:
                line_prefix[child], child_prefix[child] = own, own
            else:
                last = index == len(kids) - 1
                line_prefix[child] = own + ("└ " if last else "├ ")
                child_prefix[child] = own + ("  " if last else "│ ")
        marks = f" [{node.label}]" if node.label else ""
        marks += " <- leaf" if record.id == leaf_id else ""
        lead = line_prefix.get(record.id, "")
        lines.append(f"{lead}{record.id} {_kind(record)}: {entry_preview(record)}{marks}")
    return "".join(line + "\n" for line in lines)


def render_context(context: SessionContext) -> str:
    """A transcript of a context, one line per message, then model and thinking level."""
    lines = [f"[{m.get('role')}] {message_preview(m)}" for m in context.messages]
    model = context.model
    where = f"{model.get('provider')}/{model.get('modelId')}" if model else "(none)"
    lines.append(
        f"-- {len(context.messages)} messages; model {where}; thinking {context.thinking_level}"
    )
    return "".join(line + "\n" for line in lines)

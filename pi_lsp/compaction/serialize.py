"""A conversation as plain text for a summary request (pi's ``serializeConversation``). Pure.

Messages become labelled parts joined by blank lines, so the summarizing model reads a
transcript instead of continuing a chat. Tool results are cut to 2000 UTF-16 code units with a
marker; user and assistant text is never cut. Unlike pi, the cut never splits a surrogate pair
(pi v0.58.3 can leave half an emoji at the end of the kept text).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_lsp.compaction.js import js_len, js_object_items, js_stringify, utf16_prefix
from pi_lsp.session.convert import convert_to_llm
from pi_lsp.session.jsonl import JsonObject

TOOL_RESULT_MAX_CHARS = 2000
"""UTF-16 code units of a tool result kept in a summary request."""


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """``text`` cut to ``max_chars`` UTF-16 units plus ``[... N more characters truncated]``."""
    length = js_len(text)
    if length <= max_chars:
        return text
    kept = utf16_prefix(text, max_chars)
    return f"{kept}\n\n[... {length - js_len(kept)} more characters truncated]"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        block["text"]
        for block in (content if isinstance(content, list) else ())
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _tool_call(block: JsonObject) -> str:
    args = block.get("arguments")
    pairs = js_object_items(args) if isinstance(args, dict) else []
    rendered = ", ".join(f"{key}={js_stringify(value)}" for key, value in pairs)
    return f"{_str(block.get('name'))}({rendered})"


def _assistant_parts(content: Any) -> list[str]:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[str] = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(_str(block.get("text")))
        elif kind == "thinking":
            thinking.append(_str(block.get("thinking")))
        elif kind == "toolCall":
            calls.append(_tool_call(block))
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Iterable[JsonObject]) -> str:
    """Provider messages (``user``/``assistant``/``toolResult``) as a labelled transcript."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            parts.extend(_assistant_parts(message.get("content")))
        elif role == "toolResult":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


def serialize_messages(messages: Iterable[JsonObject]) -> str:
    """Agent messages (any role) converted with ``convert_to_llm`` and then serialized."""
    return serialize_conversation(convert_to_llm(messages))

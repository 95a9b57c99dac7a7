"""pi's ``convertToLlm`` (spec §3.3): agent messages to the three roles providers understand.

``user``, ``assistant`` and ``toolResult`` pass through; bash executions, custom messages and
branch/compaction summaries become ``user`` messages with pi's exact wording. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pi_lsp.session.jsonl import JsonObject

COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
)
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:"
IMAGES_DISABLED = "Image reading is disabled."


def bash_execution_text(message: Mapping[str, Any]) -> str:
    """Pi's ``bashExecutionToText``: the command, its fenced output and how it ended."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif message.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {message['exitCode']}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _user(content: object, timestamp: object) -> JsonObject:
    return {"role": "user", "content": content, "timestamp": timestamp}


def _text(text: str) -> list[JsonObject]:
    return [{"type": "text", "text": text}]


def convert_message(message: Mapping[str, Any]) -> JsonObject | None:
    """One agent message as a provider message, or None when it is not sent."""
    role = message.get("role")
    stamp = message.get("timestamp")
    if role in ("user", "assistant", "toolResult"):
        return message if isinstance(message, dict) else dict(message)
    if role == "bashExecution":
        if message.get("excludeFromContext"):
            return None
        return _user(_text(bash_execution_text(message)), stamp)
    if role == "custom":
        content = message.get("content")
        return _user(_text(content) if isinstance(content, str) else content, stamp)
    if role == "branchSummary":
        text = f"{BRANCH_PREFIX}\n\n<summary>\n{message.get('summary', '')}</summary>"
        return _user(_text(text), stamp)
    if role == "compactionSummary":
        text = f"{COMPACTION_PREFIX}\n\n<summary>\n{message.get('summary', '')}\n</summary>"
        return _user(_text(text), stamp)
    return None


def convert_to_llm(
    messages: Iterable[Mapping[str, Any]], *, block_images: bool = False
) -> list[JsonObject]:
    """Convert a context's messages; with ``block_images`` images become a text note."""
    out = []
    for message in messages:
        converted = convert_message(message)
        if converted is None:
            continue
        if block_images and converted.get("role") in ("user", "toolResult"):
            converted = _without_images(converted)
        out.append(converted)
    return out


def _without_images(message: JsonObject) -> JsonObject:
    content = message.get("content")
    if not isinstance(content, list) or not any(b.get("type") == "image" for b in content):
        return message
    blocks: list[JsonObject] = []
    for block in content:
        if block.get("type") == "image":
            block = {"type": "text", "text": IMAGES_DISABLED}
            if blocks and blocks[-1] == block:
                continue  # consecutive duplicates collapse, as pi does
        blocks.append(block)
    return {**message, "content": blocks}

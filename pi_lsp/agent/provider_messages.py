"""pi's stored messages to litellm's (OpenAI chat-completions) message format: the one codec.

In order: :func:`~pi_lsp.session.messages.convert_to_llm` turns bash executions, custom messages
and summaries into ``user`` messages; then, as pi's ``transformMessages``, failed or aborted
assistant replies are dropped and every tool call left without a result gets an error result, so the
request is valid; then each message is rendered. Thinking is replayed only to Anthropic, and only to
the model that produced it (``thinking_blocks`` with their signatures); elsewhere it is dropped.
Tool messages are text-only on this wire, so images from tool results follow the run of tool
messages as one ``user`` message. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pi_lsp.agent.models import ModelInfo
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import ContextMessage, convert_to_llm

NO_RESULT_TEXT = "No result provided"
"""Text of a synthesised result for a tool call that never got one (pi's wording)."""
TOOL_IMAGES_TEXT = "Attached image(s) from tool result:"
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
_ANTHROPIC_ID = re.compile(r"[^a-zA-Z0-9_-]")

ToolSpec = tuple[str, str, Mapping[str, Any]]
"""A tool as the model sees it: name, description, JSON Schema of the arguments."""


def tool_definitions(tools: Iterable[ToolSpec]) -> list[JsonObject]:
    """litellm's ``tools`` argument for ``(name, description, parameters)`` triples."""
    return [
        {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": dict(schema)},
        }
        for name, description, schema in tools
    ]


def to_provider_messages(
    messages: Iterable[ContextMessage],
    model: ModelInfo,
    *,
    system_prompt: str | None = None,
    block_images: bool = False,
) -> list[JsonObject]:
    """The ``messages`` argument of a litellm call for a context's messages, sent to ``model``."""
    out: list[JsonObject] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    renderer = _Renderer(model)
    for message in answer_every_tool_call(convert_to_llm(messages, block_images=block_images)):
        renderer.render(message, out)
    renderer.flush_images(out)
    return out


def answer_every_tool_call(messages: Sequence[JsonObject]) -> list[JsonObject]:
    """pi's ``transformMessages`` second pass: drop failed replies, answer orphaned tool calls.

    Beyond pi: a tool result that answers no call of the reply before it (its reply was dropped,
    or it repeats an answered id) is dropped too, since providers reject such a request.
    """
    result: list[JsonObject] = []
    pending: list[JsonObject] = []
    answered: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role in ("assistant", "user"):
            result.extend(_missing_results(pending, answered, message.get("timestamp")))
            pending, answered = [], set()
        if role == "assistant":
            if message.get("stopReason") in ("error", "aborted"):
                continue
            pending = [b for b in message.get("content") or [] if b.get("type") == "toolCall"]
        elif role == "toolResult":
            call_id = message.get("toolCallId")
            if call_id in answered or all(call.get("id") != call_id for call in pending):
                continue
            answered.add(str(call_id))
        result.append(message)
    result.extend(_missing_results(pending, answered, None))
    return result


def _missing_results(
    calls: list[JsonObject], answered: set[str], timestamp: object
) -> list[JsonObject]:
    return [
        {
            "role": "toolResult",
            "toolCallId": call.get("id"),
            "toolName": call.get("name"),
            "content": [{"type": "text", "text": NO_RESULT_TEXT}],
            "isError": True,
            "timestamp": timestamp,
        }
        for call in calls
        if call.get("id") not in answered
    ]


class _Renderer:
    """Renders converted messages one by one; holds tool-result images until the tool run ends."""

    def __init__(self, model: ModelInfo) -> None:
        self.model = model
        self.anthropic = model.ref.api == "anthropic-messages"
        self.pending_images: list[JsonObject] = []

    def render(self, message: JsonObject, out: list[JsonObject]) -> None:
        role = message.get("role")
        if role != "toolResult":
            self.flush_images(out)
        if role == "user":
            rendered = self._user(message.get("content"))
        elif role == "assistant":
            rendered = self._assistant(message)
        elif role == "toolResult":
            rendered = self._tool_result(message)
        else:
            rendered = None
        if rendered is not None:
            out.append(rendered)

    def flush_images(self, out: list[JsonObject]) -> None:
        if self.pending_images:
            out.append(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": TOOL_IMAGES_TEXT}, *self.pending_images],
                }
            )
            self.pending_images = []

    def _user(self, content: object) -> JsonObject | None:
        if isinstance(content, str):
            return {"role": "user", "content": content}
        blocks: list[JsonObject] = content if isinstance(content, list) else []
        parts = [part for block in blocks if (part := self._part(block)) is not None]
        return {"role": "user", "content": parts} if parts else None

    def _part(self, block: JsonObject) -> JsonObject | None:
        if block.get("type") == "text":
            return {"type": "text", "text": block.get("text", "")}
        if block.get("type") == "image" and self.model.supports_images:
            return _image_part(block)
        return None

    def _assistant(self, message: JsonObject) -> JsonObject | None:
        blocks: list[JsonObject] = message.get("content") or []
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text")]
        calls = [b for b in blocks if b.get("type") == "toolCall"]
        rendered: JsonObject = {"role": "assistant", "content": _assistant_text(texts)}
        if calls:
            rendered["tool_calls"] = [self._tool_call(call) for call in calls]
        if (
            self.anthropic
            and _same_model(message, self.model)
            and (thinking := _thinking_blocks(blocks))
        ):
            rendered["thinking_blocks"] = thinking
        if rendered["content"] is None and not calls:
            return (
                None  # an empty reply (e.g. aborted before any output) is not valid for providers
            )
        return rendered

    def _tool_call(self, call: JsonObject) -> JsonObject:
        arguments = json.dumps(
            call.get("arguments") or {}, ensure_ascii=False, separators=(",", ":")
        )
        return {
            "id": self._call_id(str(call.get("id"))),
            "type": "function",
            "function": {"name": call.get("name"), "arguments": arguments},
        }

    def _tool_result(self, message: JsonObject) -> JsonObject:
        blocks: list[JsonObject] = message.get("content") or []
        text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        images = [_image_part(b) for b in blocks if b.get("type") == "image"]
        if images and self.model.supports_images:
            self.pending_images.extend(images)
        if not text and images:
            text = IMAGE_ONLY_RESULT_TEXT
        return {
            "role": "tool",
            "tool_call_id": self._call_id(str(message.get("toolCallId"))),
            "content": text,
        }

    def _call_id(self, call_id: str) -> str:
        """Anthropic accepts ``[a-zA-Z0-9_-]{1,64}`` ids; other providers' ids may not fit."""
        if not self.anthropic:
            return call_id
        return _ANTHROPIC_ID.sub("_", call_id)[:64] or "call"


def _assistant_text(texts: list[str]) -> str | list[JsonObject] | None:
    """One text block as a string (what every compatible server accepts), several as parts."""
    if not texts:
        return None
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": text} for text in texts]


def _image_part(block: JsonObject) -> JsonObject:
    url = f"data:{block.get('mimeType', 'image/png')};base64,{block.get('data', '')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _same_model(message: JsonObject, model: ModelInfo) -> bool:
    return (
        message.get("provider") == model.ref.provider
        and message.get("model") == model.ref.model_id
        and message.get("api") == model.ref.api
    )


def _thinking_blocks(blocks: list[JsonObject]) -> list[JsonObject]:
    """Anthropic's signed thinking blocks; unsigned thinking cannot be replayed and is dropped."""
    out: list[JsonObject] = []
    for block in blocks:
        signature = block.get("thinkingSignature")
        if block.get("type") != "thinking" or not signature:
            continue
        if block.get("redacted"):
            out.append({"type": "redacted_thinking", "data": signature})
        else:
            out.append(
                {"type": "thinking", "thinking": block.get("thinking", ""), "signature": signature}
            )
    return out

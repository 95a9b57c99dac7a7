"""Builds pi's assistant message from streamed chunks and emits pi's ``assistantMessageEvent``s.

Events are JSON objects, exactly pi's sub-events (``packages/ai/src/types.ts``):
``start {partial}``; ``text_start|thinking_start|toolcall_start {contentIndex, partial}``;
``text_delta|thinking_delta|toolcall_delta {contentIndex, delta, partial}``;
``text_end|thinking_end {contentIndex, content, partial}``; ``toolcall_end {contentIndex, toolCall,
partial}``; then ``done {reason, message}`` or ``error {reason, error}``. ``partial`` is the live
message being built (the same object every time, as in pi): copy it to keep a snapshot.

Tool-call arguments are parsed progressively while they stream. If the final text is not a JSON
object, the block keeps ``arguments: {}`` and :attr:`AssistantBuilder.invalid_arguments` records the
raw text under the call id, so the loop can answer the call with an error result. Pure: no I/O.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json

from pi_lsp.agent.llm import ProviderFailure, empty_usage, usage_from_provider
from pi_lsp.agent.models import ModelInfo
from pi_lsp.session.jsonl import JsonObject

_STOP_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "content_filter": "error",
}
ABORTED_MESSAGE = "Request was aborted"
REDACTED_THINKING = "[Reasoning redacted]"


@dataclass(frozen=True, slots=True)
class InvalidArguments:
    """A tool call whose streamed arguments were not a JSON object."""

    raw: str
    error: str


class AssistantBuilder:
    """Accumulates one streamed reply. Feed chunks, then call :meth:`finish` or :meth:`fail`."""

    def __init__(self, model: ModelInfo) -> None:
        self.model = model
        self.message: JsonObject = {
            "role": "assistant",
            "content": [],
            "api": model.ref.api,
            "provider": model.ref.provider,
            "model": model.ref.model_id,
            "usage": empty_usage(),
            "stopReason": "stop",
            "timestamp": int(time.time() * 1000),
        }
        self.invalid_arguments: dict[str, InvalidArguments] = {}
        self._anthropic = model.ref.api == "anthropic-messages"
        """Only Anthropic signs thinking; other deltas are not searched for signatures."""
        self._block: JsonObject | None = None
        self._raw_arguments = ""
        self._tool_index: int | None = None
        self._finish_reason: str | None = None

    def start(self) -> JsonObject:
        """The ``start`` event, once the provider accepted the request."""
        return {"type": "start", "partial": self.message}

    def feed(self, chunk: Any) -> list[JsonObject]:
        """Events for one litellm ``ModelResponseStream`` chunk."""
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.message["usage"] = usage_from_provider(usage, self.model.prices)
        choices = getattr(chunk, "choices", None) or []
        if not choices:
            return []
        choice = choices[0]
        self._finish_reason = getattr(choice, "finish_reason", None) or self._finish_reason
        delta = getattr(choice, "delta", None)
        if delta is None:
            return []
        events: list[JsonObject] = []
        self._reasoning(delta, events)
        if content := getattr(delta, "content", None):
            self._append_text("text", "text", content, events)
        for call in getattr(delta, "tool_calls", None) or []:
            self._tool_delta(call, events)
        return events

    def finish(self) -> list[JsonObject]:
        """Close the open block; end with ``done`` (or ``error`` when the provider refused)."""
        events = self._close_block()
        reason = _STOP_REASONS.get(self._finish_reason or "stop", "stop")
        if reason == "stop" and any(b["type"] == "toolCall" for b in self.message["content"]):
            reason = "toolUse"
        self.message["stopReason"] = reason
        if reason == "error":
            self.message["errorMessage"] = f"The provider stopped the reply ({self._finish_reason})"
            return [*events, {"type": "error", "reason": "error", "error": self.message}]
        return [*events, {"type": "done", "reason": reason, "message": self.message}]

    def fail(self, failure: ProviderFailure | None) -> list[JsonObject]:
        """End the reply as ``error`` (a provider failure) or ``aborted`` (``failure`` is None)."""
        self._close_block(emit=False)
        reason = "aborted" if failure is None else "error"
        self.message["stopReason"] = reason
        self.message["errorMessage"] = ABORTED_MESSAGE if failure is None else failure.message
        return [{"type": "error", "reason": reason, "error": self.message}]

    def _reasoning(self, delta: Any, events: list[JsonObject]) -> None:
        text = getattr(delta, "reasoning_content", None)
        signed = self._anthropic and getattr(delta, "thinking_blocks", None)
        signature, redacted = _signature(signed or None)
        if redacted is not None:
            self._open(
                "thinking",
                events,
                thinking=REDACTED_THINKING,
                thinkingSignature=redacted,
                redacted=True,
            )
            return
        if text:
            self._append_text("thinking", "thinking", text, events)
        if signature and self._block is not None and self._block["type"] == "thinking":
            self._block["thinkingSignature"] = self._block.get("thinkingSignature", "") + signature

    def _append_text(self, kind: str, field: str, text: str, events: list[JsonObject]) -> None:
        if self._block is None or self._block["type"] != kind:
            extra = (
                {}
                if kind == "text" or self._anthropic
                else {"thinkingSignature": "reasoning_content"}
            )
            self._open(kind, events, **{field: ""}, **extra)
        block = self._block
        assert block is not None
        block[field] += text
        events.append(
            {
                "type": f"{kind}_delta",
                "contentIndex": self._index(),
                "delta": text,
                "partial": self.message,
            }
        )

    def _tool_delta(self, call: Any, events: list[JsonObject]) -> None:
        call_id = getattr(call, "id", None)
        index = getattr(call, "index", None)
        function = getattr(call, "function", None)
        block = self._block
        if (
            block is None
            or block["type"] != "toolCall"
            or (call_id and call_id != block["id"])
            or (index is not None and self._tool_index is not None and index != self._tool_index)
        ):
            self._open("toolCall", events, id=call_id or "", name="", arguments={})
            self._raw_arguments, self._tool_index = "", index
            block = self._block
        assert block is not None
        block["id"] = call_id or block["id"]
        block["name"] = getattr(function, "name", None) or block["name"]
        fragment = getattr(function, "arguments", None) or ""
        if fragment:
            self._raw_arguments += fragment
            block["arguments"] = _partial_object(self._raw_arguments, block["arguments"])
        events.append(
            {
                "type": "toolcall_delta",
                "contentIndex": self._index(),
                "delta": fragment,
                "partial": self.message,
            }
        )

    def _open(self, kind: str, events: list[JsonObject], **fields: Any) -> None:
        events.extend(self._close_block())
        self._block = {"type": kind, **fields}
        self.message["content"].append(self._block)
        start = "toolcall_start" if kind == "toolCall" else f"{kind}_start"
        events.append({"type": start, "contentIndex": self._index(), "partial": self.message})

    def _close_block(self, *, emit: bool = True) -> list[JsonObject]:
        block, self._block = self._block, None
        if block is None:
            return []
        index = self._index()  # the open block is always the last one
        if block["type"] == "toolCall":
            self._finish_tool_call(block, final=emit)
            event = {
                "type": "toolcall_end",
                "contentIndex": index,
                "toolCall": block,
                "partial": self.message,
            }
        else:
            field = "text" if block["type"] == "text" else "thinking"
            event = {
                "type": f"{field}_end",
                "contentIndex": index,
                "content": block[field],
                "partial": self.message,
            }
        return [event] if emit else []

    def _finish_tool_call(self, block: JsonObject, *, final: bool) -> None:
        if not block["id"]:
            block["id"] = f"call_{uuid.uuid4().hex[:24]}"
        if not final:
            return  # an interrupted call keeps its best-effort partial arguments
        raw = self._raw_arguments
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except ValueError as exc:
            parsed, problem = None, str(exc)
        else:
            problem = f"expected a JSON object, got {type(parsed).__name__}"
        if isinstance(parsed, dict):
            block["arguments"] = parsed
        else:
            block["arguments"] = {}
            self.invalid_arguments[block["id"]] = InvalidArguments(raw=raw, error=problem)

    def _index(self) -> int:
        return len(self.message["content"]) - 1


def _partial_object(raw: str, previous: JsonObject) -> JsonObject:
    """The arguments parsed so far; the previous value while the text is not yet parseable."""
    try:
        value = from_json(raw, allow_partial="trailing-strings")
    except ValueError:
        return previous
    return value if isinstance(value, dict) else previous


def _signature(blocks: Any) -> tuple[str, str | None]:
    """Anthropic thinking signature text and redacted-thinking data carried by a delta."""
    signature, redacted = "", None
    for block in blocks or []:
        get = block.get if isinstance(block, dict) else lambda key, b=block: getattr(b, key, None)
        if get("type") == "redacted_thinking":
            redacted = str(get("data") or "")
        elif get("signature"):
            signature += str(get("signature"))
    return signature, redacted

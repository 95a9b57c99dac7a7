"""The typed appends of a session: every entry type pi 1.6.0 writes, built as pi builds it.

:class:`EntryAppends` is the half of :class:`pi_lsp.session.store.SessionStore` that knows what
goes into each entry (a message, model and thinking changes, a compaction with pi's
``systemMessage``, context edits, usage, branch summaries, custom entries, labels, names); the
store itself owns the index, the leaf and the file, and turns each of these into one appended
line (:meth:`EntryAppends._append`). A message is checked against pi's message models before it
is written (:func:`validate_message`), so pi_lsp never writes one pi's reader would not take.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from pi_lsp.session.context import SessionContext
from pi_lsp.session.jsonl import JsonObject, Record
from pi_lsp.session.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from pi_lsp.session.paths import parse_iso_ms
from pi_lsp.session.projection import current_system_message

_LINE_BREAKS = re.compile(r"[\r\n]+")

ABSENT: Any = object()
"""Marks an optional field that is left out of the entry (JavaScript ``undefined``)."""


@functools.cache
def _writable() -> TypeAdapter[Any]:
    """The validator of the messages pi stores, compiled on the first append, not at import."""
    return TypeAdapter(
        Annotated[
            UserMessage
            | AssistantMessage
            | ToolResultMessage
            | BashExecutionMessage
            | CustomMessage
            | SystemMessage,
            Field(discriminator="role"),
        ]
    )


class InvalidMessageError(ValueError):
    """A message pi's reader would not understand; nothing was written."""


def validate_message(message: Any) -> None:
    """Raise :class:`InvalidMessageError` unless ``message`` is a message pi stores."""
    try:
        _writable().validate_python(message)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidMessageError(f"invalid message at {where or 'top'}: {first['msg']}") from None


class EntryAppends:
    """Appends of every entry type; the store provides the leaf, lookups and ``_append``."""

    _leaf: str | None

    def _append(
        self, build: Callable[[JsonObject], JsonObject], kind: str, *, head_first: bool = False
    ) -> str:
        """Hang the entry ``build`` makes (from id, parentId, timestamp) under the leaf."""
        raise NotImplementedError

    def require(self, entry_id: str) -> Record:
        """The entry with this id (raises when there is none)."""
        raise NotImplementedError

    def branch_path(self, from_id: str | None = None) -> list[Record]:
        """Entries from the root to ``from_id`` (default: the leaf)."""
        raise NotImplementedError

    def context(self, leaf_id: str | None = None) -> SessionContext:
        """The model context at ``leaf_id`` (default: the leaf)."""
        raise NotImplementedError

    def append_message(self, message: Mapping[str, Any]) -> str:
        """Append a conversation message (validated against pi's message models)."""
        validate_message(message)
        return self._append(lambda e: {**e, "message": message}, "message")

    def append_thinking_level_change(self, level: str) -> str:
        """Record a thinking-level change."""
        return self._append(lambda e: {**e, "thinkingLevel": level}, "thinking_level_change")

    def append_model_change(self, provider: str, model_id: str) -> str:
        """Record a model change."""
        return self._append(
            lambda e: {**e, "provider": provider, "modelId": model_id}, "model_change"
        )

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        details: Any = ABSENT,
        from_hook: Any = ABSENT,
        usage: Any = ABSENT,
    ) -> str:
        """Append a compaction checkpoint, as pi 1.6.0's ``appendCompaction`` writes it.

        ``first_kept_entry_id`` None keeps nothing (the entry names itself). When the context
        holds system messages, their replay goes into ``systemMessage`` (stamped with the
        entry's time), so the prompt state survives the compaction for pi. pi writes
        ``fromHook: false`` for its own; ``usage`` is the summary call's.
        """
        system = current_system_message(self.context().messages)

        def build(entry: JsonObject) -> JsonObject:
            fields: JsonObject = {
                "summary": summary,
                "firstKeptEntryId": first_kept_entry_id or entry["id"],
                "tokensBefore": tokens_before,
            }
            out = _with_optional(
                {**entry, **fields}, details=details, usage=usage, fromHook=from_hook
            )
            if system is not None:
                out["systemMessage"] = {**system, "timestamp": parse_iso_ms(entry["timestamp"])}
            return out

        return self._append(build, "compaction")

    def append_context_edit(self, target_id: str, replacement: JsonObject | None) -> str:
        """Omit (None) or replace the content of an earlier entry of the branch in the context.

        pi 1.6.0's ``appendContextEdit``: the target must be on the branch and be a user,
        assistant or tool-result message or a custom message; string content for an assistant
        or tool result is stored as one text block.

        Raises:
            ValueError: the replacement or the target is not editable.
            EntryNotFoundError: the target does not exist.
        """
        if replacement is not None and not isinstance(replacement.get("content"), str | list):
            raise ValueError("a context edit replacement must be null or have string/array content")
        target = self.require(target_id)
        if all(r.id != target_id for r in self.branch_path()):
            raise ValueError(f"entry {target_id} is not on the active branch")
        role = "custom" if target.type == "custom_message" else target.role
        if not (target.type == "custom_message" or role in ("user", "assistant", "toolResult")):
            raise ValueError(f"entry {target_id} does not contribute editable model content")
        if replacement is not None and role in ("assistant", "toolResult"):
            content = replacement["content"]
            if isinstance(content, str):
                replacement = {"content": [{"type": "text", "text": content}]}
        fields = {"targetId": target_id, "replacement": replacement}
        return self._append(lambda e: {**e, **fields}, "context_edit")

    def append_usage(
        self, kind: str, provider: str, model: str, usage: JsonObject, note: str | None = None
    ) -> str:
        """Model usage outside any message (pi 1.6.0's ``usage`` entry); never in the context."""
        fields: JsonObject = {"kind": kind, "provider": provider, "model": model, "usage": usage}
        if note:
            fields["note"] = note
        return self._append(lambda e: {**e, **fields}, "usage")

    def branch_with_summary(
        self,
        from_id: str | None,
        summary: str,
        details: Any = ABSENT,
        from_hook: Any = ABSENT,
        usage: Any = ABSENT,
    ) -> str:
        """Move the leaf to ``from_id`` (None: a new root) and hang a branch summary there.

        ``fromId`` names the leaf left behind (``"root"`` when there was none), as pi 1.6.0
        writes it.
        """
        if from_id is not None:
            self.require(from_id)
        fields = {"fromId": self._leaf if self._leaf is not None else "root", "summary": summary}
        self._leaf = from_id
        return self._append(
            lambda e: _with_optional(
                {**e, **fields}, details=details, usage=usage, fromHook=from_hook
            ),
            "branch_summary",
        )

    def append_custom_entry(self, custom_type: str, data: Any = ABSENT) -> str:
        """Extension state: part of the tree, never of the context."""
        head = _with_optional({"type": "custom", "customType": custom_type}, data=data)
        return self._append(lambda e: {**head, **e}, "custom", head_first=True)

    def append_custom_message(
        self, custom_type: str, content: Any, display: bool, details: Any = ABSENT
    ) -> str:
        """An extension message that enters the context as a user message."""
        head = {"type": "custom_message", "customType": custom_type, "content": content}
        head = _with_optional({**head, "display": display}, details=details)
        return self._append(lambda e: {**head, **e}, "custom_message", head_first=True)

    def append_label(self, target_id: str, label: str | None = None) -> str:
        """Set (non-empty) or clear (None or empty) the bookmark on an entry."""
        self.require(target_id)
        extra = (
            {"targetId": target_id} if label is None else {"targetId": target_id, "label": label}
        )
        return self._append(lambda e: {**e, **extra}, "label")

    def append_session_info(self, name: str) -> str:
        """Name the session; an empty name clears it.

        Line breaks become one space and the name is trimmed, as pi 1.6.0 writes it.
        """
        clean = _LINE_BREAKS.sub(" ", name).strip()
        return self._append(lambda e: {**e, "name": clean}, "session_info")


def _with_optional(obj: JsonObject, **optional: Any) -> JsonObject:
    for key, value in optional.items():
        if value is not ABSENT:
            obj[key] = value
    return obj

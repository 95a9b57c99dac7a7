"""Checking what pi_lsp is about to write against pi's message models."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from pi_lsp.session.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)

_WRITABLE: TypeAdapter[Any] = TypeAdapter(
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
        _WRITABLE.validate_python(message)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidMessageError(f"invalid message at {where or 'top'}: {first['msg']}") from None

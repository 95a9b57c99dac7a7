"""The tool interface the agent loop calls, and the result shape pi stores.

A tool has pi's ``name``, a one-line ``summary`` for the system prompt's tool list, the full
``description`` and a JSON Schema of its arguments (generated from a pydantic model) for the
provider. ``execute`` validates the raw arguments and runs the tool:

- success returns a ``ToolResult`` with pi's ``content`` blocks and ``details`` object;
- a failure raises ``ToolError``; the loop turns it into an ``isError`` result whose only block is
  the message and whose ``details`` is ``{}`` (pi's ``agent-loop.ts``);
- a few results are errors that still carry output (bash's non-zero exit): ``is_error=True``.

``cancel`` is the abort signal (set once, never cleared); ``on_update`` receives partial results
while the tool runs (bash streams its output this way).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pi_lsp.session.messages import ContentBlock, TextContent
from pi_lsp.tools.errors import ABORTED, ToolError
from pi_lsp.tools.params import P, parameters_schema, validate_arguments


def text_block(text: str) -> TextContent:
    """A text content block."""
    return {"type": "text", "text": text}


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """What a tool returns: pi's ``content`` blocks and ``details``; ``is_error`` for errors."""

    content: list[ContentBlock] = field(default_factory=list)
    details: dict[str, Any] | None = None
    """pi's details object (for example ``{"diff", "firstChangedLine"}``); None when pi has none."""
    is_error: bool = False

    @classmethod
    def of_text(
        cls, text: str, details: dict[str, Any] | None = None, *, is_error: bool = False
    ) -> ToolResult:
        """A result holding one text block."""
        return cls(content=[text_block(text)], details=details, is_error=is_error)

    @property
    def text(self) -> str:
        """The text blocks joined with newlines (for logs and tests)."""
        return "\n".join(block["text"] for block in self.content if block["type"] == "text")


UpdateCallback = Callable[[ToolResult], None]
"""Receives a partial result while a tool runs (pi's ``onUpdate``)."""


def raise_if_aborted(cancel: asyncio.Event | None) -> None:
    """Raise pi's ``Operation aborted`` error once the abort signal is set."""
    if cancel is not None and cancel.is_set():
        raise ToolError(ABORTED)


T = TypeVar("T")


async def run_in_thread(work: Callable[[threading.Event], T], cancel: asyncio.Event | None) -> T:
    """Run blocking ``work`` in a worker thread, stoppable by the abort signal.

    The abort signal or cancelling the calling task sets the event ``work`` polls; an abort
    raises pi's ``Operation aborted``.
    """
    stop = threading.Event()
    job = asyncio.ensure_future(asyncio.to_thread(work, stop))
    waiter = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    try:
        await asyncio.wait(
            [t for t in (job, waiter) if t is not None], return_when="FIRST_COMPLETED"
        )
    finally:
        if not job.done():
            stop.set()
            with contextlib.suppress(Exception):
                await job
        if waiter is not None:
            waiter.cancel()
    if cancel is not None and cancel.is_set() and stop.is_set():
        raise ToolError(ABORTED)
    return job.result()


class Tool(ABC, Generic[P]):
    """One built-in tool, bound to a session's working directory."""

    name: ClassVar[str]
    """pi's tool name (``read``, ``bash``, ...)."""
    summary: ClassVar[str]
    """The one-line description pi lists in the system prompt."""
    params_model: type[P]
    """The pydantic model of the arguments."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        """Relative paths resolve against this directory."""

    @property
    @abstractmethod
    def description(self) -> str:
        """The full description sent to the provider with the schema."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments."""
        return parameters_schema(self.params_model)

    def validate(self, args: Mapping[str, Any] | Any) -> P:
        """Parse raw arguments, raising ``ToolError`` with pi's validation message."""
        return validate_arguments(self.name, self.params_model, args)

    async def execute(
        self,
        args: Mapping[str, Any] | Any,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Validate ``args`` and run the tool; failures raise ``ToolError``."""
        params = self.validate(args)
        return await self.run(params, cancel=cancel, on_update=on_update)

    @abstractmethod
    async def run(
        self,
        params: P,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Run with validated arguments."""

"""What a tool is: its arguments, its call, its result, its errors, and how it reads a path.

A tool has pi's ``name``, a one-line ``summary`` for the system prompt's tool list, the full
``description`` and a JSON Schema of its arguments (generated from a pydantic model) for the
provider. ``execute`` validates the raw arguments and runs the tool:

- success returns a ``ToolResult`` with pi's ``content`` blocks and ``details`` object;
- a failure raises ``ToolError``; the loop turns it into an ``isError`` result whose only block is
  the message and whose ``details`` is ``{}`` (pi's ``agent-loop.ts``);
- a few results are errors that still carry output (bash's non-zero exit): ``is_error=True``.

Arguments are a pydantic model. The schema given to the model is cleaned to the plain shape pi's
TypeBox schemas have (no titles, optional fields as plain types rather than ``anyOf [T, null]``).
Validation coerces like pi's AJV (``"5"`` → 5, 5 → ``"5"``) and fails with pi's message:
``Validation failed for tool "<name>":`` then one ``  - <field>: <problem>`` line per error and
the received arguments as indented JSON.

A path argument loses a leading ``@`` (models copy pi's file mentions), has Unicode space
variants turned into ASCII spaces, expands ``~`` and ``~/``, and resolves against the session's
working directory. ``read`` also tries the spellings macOS uses in screenshot names
(:func:`read_path_variants`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from pi_lsp.session.messages import ContentBlock, TextContent


class ToolError(Exception):
    """A failure reported to the model as the text of an error tool result.

    A ``FileSystem`` implementation may raise it too (for example an editor reporting a version
    conflict); the message then reaches the model unchanged.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


ABORTED = "Operation aborted"
"""pi's text for a tool stopped by the abort signal (bash has its own, ``Command aborted``)."""


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


@dataclass(frozen=True, slots=True)
class ToolInvocation:
    """One run of a tool: the abort signal (set once, never cleared) and the partial results.

    bash streams its output through ``on_update``.
    """

    cancel: asyncio.Event | None = None
    on_update: UpdateCallback | None = None

    @property
    def aborted(self) -> bool:
        """Whether the abort signal is set."""
        return self.cancel is not None and self.cancel.is_set()

    def check(self) -> None:
        """Raise pi's ``Operation aborted`` error once the abort signal is set."""
        if self.aborted:
            raise ToolError(ABORTED)

    async def in_thread(self, work: Callable[[threading.Event], T]) -> T:
        """:func:`run_in_thread` with this call's abort signal."""
        return await run_in_thread(work, self.cancel)


class ToolParams(BaseModel):
    """Base of every tool's arguments: unknown keys ignored, numbers accepted as strings."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, frozen=True)


P = TypeVar("P", bound=ToolParams)


# AJV's wording for the pydantic error types a model's arguments usually hit.
_AJV_MESSAGES = {
    "string_type": "must be string",
    "int_type": "must be integer",
    "int_parsing": "must be integer",
    "int_from_float": "must be integer",
    "float_type": "must be number",
    "float_parsing": "must be number",
    "bool_type": "must be boolean",
    "bool_parsing": "must be boolean",
    "model_type": "must be object",
    "model_attributes_type": "must be object",
}


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a parameters model in the shape providers and pi expect."""
    schema = model.model_json_schema()
    return _object_schema(schema, schema.get("$defs", {}))


def _object_schema(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """An object schema with cleaned properties (nested models inlined: providers get no $defs)."""
    properties = {
        name: _clean_property(_inline(prop, defs))
        for name, prop in schema.get("properties", {}).items()
    }
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        result["required"] = list(schema["required"])
    return result


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Replace ``$ref``s to nested models by their cleaned object schema."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _object_schema(defs[ref.removeprefix("#/$defs/")], defs)
    return {k: _inline(v, defs) for k, v in node.items()}


def _clean_property(prop: dict[str, Any]) -> dict[str, Any]:
    variants = [v for v in prop.get("anyOf", []) if v.get("type") != "null"]
    base = dict(variants[0]) if len(variants) == 1 else {}
    merged = {**base, **{k: v for k, v in prop.items() if k != "anyOf"}}
    merged.pop("title", None)
    if merged.get("default", 0) is None:
        del merged["default"]
    return merged


def validate_arguments(tool_name: str, model: type[P], args: object) -> P:
    """Parse the model's arguments (any JSON), or raise ``ToolError`` with pi's message."""
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        lines = "\n".join(_error_line(error) for error in exc.errors()) or (
            "Unknown validation error"
        )
        received = json.dumps(args, indent=2, ensure_ascii=False, default=str)
        raise ToolError(
            f'Validation failed for tool "{tool_name}":\n{lines}\n\nReceived arguments:\n{received}'
        ) from None


def _error_line(error: ErrorDetails) -> str:
    location = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f"  - {location}: must have required property '{error['loc'][-1]}'"
    message = _AJV_MESSAGES.get(error["type"], error["msg"])
    return f"  - {location or 'root'}: {message}"


_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.")
_NARROW_NO_BREAK_SPACE = "\u202f"


def expand_path(path: str) -> str:
    """Strip one leading ``@``, normalize Unicode spaces, expand ``~`` and ``~/``."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """An absolute path as given; a relative one joined to ``cwd`` and normalized.

    A NUL byte (no file can have it in its name; Python's file calls raise ``ValueError``) is
    the tool's error, never a crash of the turn.
    """
    if "\0" in path:
        raise ToolError(f"Invalid path {path!r}: a path cannot contain a NUL byte.")
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(os.path.join(cwd, expanded))


def read_path_variants(resolved: str) -> list[str]:
    """Spellings to try, in pi's order, when ``resolved`` does not exist.

    A narrow no-break space before ``AM``/``PM``, NFD, and a curly apostrophe.
    """
    nfd = unicodedata.normalize("NFD", resolved)
    candidates = [
        _AM_PM.sub(_NARROW_NO_BREAK_SPACE + r"\1.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    ]
    variants: list[str] = []
    for candidate in candidates:
        if candidate != resolved and candidate not in variants:
            variants.append(candidate)
    return variants


class Tool(ABC, Generic[P]):
    """One built-in tool, bound to a session's working directory.

    A tool states what differs: its name, texts, argument model and :meth:`run`.
    """

    name: ClassVar[str]
    """pi's tool name (``read``, ``bash``, ...)."""
    summary: ClassVar[str]
    """The one-line description pi lists in the system prompt."""
    description: ClassVar[str]
    """The full description sent to the provider with the schema."""
    params_model: type[P]
    """The pydantic model of the arguments."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        """Relative paths resolve against this directory."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments."""
        return parameters_schema(self.params_model)

    def validate(self, args: object) -> P:
        """Parse raw arguments, raising ``ToolError`` with pi's validation message."""
        return validate_arguments(self.name, self.params_model, args)

    def resolve(self, path: str) -> str:
        """A path argument made absolute (:func:`resolve_to_cwd` against the session's cwd)."""
        return resolve_to_cwd(path, self.cwd)

    async def execute(
        self,
        args: object,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Validate ``args`` and run the tool; failures raise ``ToolError``."""
        params = self.validate(args)
        return await self.run(params, ToolInvocation(cancel, on_update))

    @abstractmethod
    async def run(self, params: P, call: ToolInvocation) -> ToolResult:
        """Run with validated arguments."""

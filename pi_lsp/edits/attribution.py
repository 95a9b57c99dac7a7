"""Which tool is writing, and what it read: context variables scoped to one tool call.

The tools call ``fs.write_text(path, content)`` and know nothing of editors, so the writing
tool's name reaches the editor's change annotation through a context variable the agent loop sets
around each call::

    with tool_scope(call.tool.name):
        result = await call.tool.execute(args, ...)

``tool_scope`` also starts an empty record of the reads made in the call. ``edit`` reads a file,
then writes it: the write is diffed against the text that read returned, and refused when the
buffer has changed since (the editor's version check closes the remaining race). asyncio copies
the context into every task, so calls running in parallel tasks never see each other's reads.
Without a scope the reads made in the current context count, and the tool name is inferred: a
write after a read of the same file is ``edit``, otherwise ``write``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType

from pi_lsp.edits.uris import uri_key


@dataclass(frozen=True, slots=True)
class ReadSnapshot:
    """The text a tool read from an editor buffer (or the overlay), and its version."""

    text: str
    version: int | None


_EMPTY: Mapping[str, ReadSnapshot] = MappingProxyType({})
_TOOL: ContextVar[str | None] = ContextVar("pi_lsp_writing_tool", default=None)
_READS: ContextVar[Mapping[str, ReadSnapshot]] = ContextVar("pi_lsp_tool_reads", default=_EMPTY)


@contextmanager
def tool_scope(name: str) -> Iterator[None]:
    """Run the body as tool ``name`` with a fresh record of reads."""
    tool_token = _TOOL.set(name)
    reads_token = _READS.set(_EMPTY)
    try:
        yield
    finally:
        _READS.reset(reads_token)
        _TOOL.reset(tool_token)


def current_tool() -> str | None:
    """The tool named by the innermost ``tool_scope``, if any."""
    return _TOOL.get()


def remember_read(uri: str, snapshot: ReadSnapshot) -> None:
    """Record that the current tool call read ``snapshot`` from ``uri``."""
    _READS.set(MappingProxyType({**_READS.get(), uri_key(uri): snapshot}))


def take_read(uri: str) -> ReadSnapshot | None:
    """The current call's last read of ``uri``, forgotten once taken (one write per read)."""
    reads = _READS.get()
    key = uri_key(uri)
    snapshot = reads.get(key)
    if snapshot is not None:
        _READS.set(MappingProxyType({k: v for k, v in reads.items() if k != key}))
    return snapshot


def annotation_label(tool: str | None, read_first: bool) -> str:
    """``pi: <tool>``, the label editors show for the change (undo stack, refactor preview)."""
    name = tool or ("edit" if read_first else "write")
    return f"pi: {name}"

"""The editor side of the editor-backed file system: the seam, and a write's life across it.

**The seam.** ``EditorBridge`` stands between ``EditorFileSystem`` and the LSP server: it answers
which buffers the editor has open (with their unsaved text and version), applies a workspace
change (``workspace/applyEdit`` in the pygls implementation, ``pi_lsp.protocol.editor_bridge``), and
states what the client can do. The change is described with the small dataclasses below, so this
package and its tests never import pygls or lsprotocol.

Documents are named by ``file://`` URIs. A path becomes ``file:///…`` with every byte outside the
unreserved set and ``/`` percent-encoded as UTF-8 (a space is ``%20``, ``#`` is ``%23``):
``pathlib``'s ``as_uri``, which also spells Windows drives. Clients differ in what else they
encode (VS Code encodes the ``:`` of a Windows drive), so URIs are compared decoded
(``uri_key``), as pygls keys its documents.

**Attribution.** The tools call ``fs.write_text(path, content)`` and know nothing of editors, so
the writing tool's name reaches the editor's change annotation through a context variable the
agent loop sets around each call::

    with tool_scope(call.tool.name):
        result = await call.tool.execute(args, ...)

``tool_scope`` also starts an empty record of the reads made in the call. ``edit`` reads a file,
then writes it: the write is diffed against the text that read returned, and refused when the
buffer has changed since (the editor's version check closes the remaining race). asyncio copies
the context into every task, so calls running in parallel tasks never see each other's reads.
Without a scope the reads made in the current context count, and the tool name is inferred: a
write after a read of the same file is ``edit``, otherwise ``write``.

**The overlay** holds text the editor accepted but has not reported back yet. An editor answers
``workspace/applyEdit`` and sends the matching ``didChange`` separately (Neovim debounces it by
150 ms), so right after a successful apply the server's copy of the buffer is still the old
text. The overlay remembers the new text until the server's copy catches up:

- an edit to an open document is pending while the document's version is still the one the edit
  was made against, for at most ``ttl`` seconds (an editor that dropped the edit silently, as
  Neovim does with a stale version, never sends a ``didChange``);
- a created file is pending until the editor opens it to the server (``didOpen`` then carries the
  truth) or its disk content changes (the user saved, or something else wrote it).

**The texts** the model reads when an editor-backed write does not happen each say what
happened, that the user's text was left alone, and what to do next: read the file again (its
current content is what counts) before retrying.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Protocol
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from pi_lsp.edits.diff import Edit, PositionEncoding
from pi_lsp.literals import EditMode as EditMode


def path_to_uri(path: str) -> str:
    """The ``file://`` URI of an absolute path."""
    return Path(path).as_uri()


def uri_to_path(uri: str) -> str | None:
    """The local path of a ``file://`` URI (decoded); None for other schemes."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    path = url2pathname(parts.path)
    return f"//{parts.netloc}{path}" if parts.netloc else path


def uri_key(uri: str) -> str:
    """A URI decoded for comparison."""
    return unquote(uri)


def normal_path(path: str) -> str:
    """A path's normalized spelling (``..`` and doubled slashes resolved, case as the OS folds)."""
    return os.path.normcase(os.path.normpath(path))


@dataclass(frozen=True, slots=True)
class OpenDocument:
    """A document the editor has open: its URI as the client spells it, text and version."""

    uri: str
    text: str
    """The buffer's text, unsaved changes included."""
    version: int | None
    """The version of the last ``didOpen``/``didChange`` (None if the client sent none)."""


@dataclass(frozen=True, slots=True)
class TextChange:
    """Edits to one document (an LSP ``TextDocumentEdit``)."""

    uri: str
    version: int | None
    """The version the edits were computed against; None applies them unversioned."""
    edits: tuple[Edit, ...]


@dataclass(frozen=True, slots=True)
class CreateFile:
    """Create an empty file that must not exist yet (an LSP ``CreateFile``)."""

    uri: str


Operation = TextChange | CreateFile


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceChange:
    """One ``workspace/applyEdit``: operations applied in order, as a single undoable step."""

    operations: tuple[Operation, ...]
    label: str
    """Shown by editors on the undo stack (``pi: edit``)."""
    annotation: str | None = None
    """A change annotation with this label on every operation; only set for clients that
    support change annotations."""


@dataclass(frozen=True, slots=True)
class ApplyOutcome:
    """The editor's answer: applied or not, and its reason when not."""

    applied: bool
    reason: str | None = None


class TextWatch(Protocol):
    """Watches one document for the text an applied edit should produce (see ``watch_text``)."""

    def verdict(self) -> bool | None:
        """Whether the server's copy held the expected text.

        True once it did; False once a change arrived (a later version) without it ever
        holding that text; None while nothing came yet.
        """
        ...

    def close(self) -> None:
        """Stop watching."""
        ...


class EditorBridge(Protocol):
    """An attached editor as the file system sees it."""

    @property
    def can_apply_edits(self) -> bool:
        """The client accepts ``workspace/applyEdit``."""
        ...

    @property
    def document_changes(self) -> bool:
        """Versioned ``documentChanges`` are supported (else only unversioned ``changes``)."""
        ...

    @property
    def create_files(self) -> bool:
        """``CreateFile`` operations are supported (needs ``document_changes`` too)."""
        ...

    @property
    def change_annotations(self) -> bool:
        """Change annotations are supported (needs ``document_changes`` too)."""
        ...

    @property
    def position_encoding(self) -> PositionEncoding:
        """The position encoding negotiated at ``initialize``."""
        ...

    def open_document(self, path: str) -> OpenDocument | None:
        """The editor's buffer for an absolute path, or None when the editor has no such buffer."""
        ...

    async def apply_edit(self, change: WorkspaceChange) -> ApplyOutcome:
        """Ask the editor to apply ``change``; a refusal, an error or no answer is not applied."""
        ...

    def watch_text(self, uri: str, version: int | None, expected: str) -> TextWatch | None:
        """Start watching the open document ``uri`` (now at ``version``) for ``expected``.

        Called before an edit is sent, so the editor's report of it cannot be missed. None when
        the bridge cannot watch (then an applied edit is trusted, as before).
        """
        ...

    def tell_user(self, message: str) -> None:
        """Show ``message`` to the user (``window/showMessage``, warning)."""
        ...


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


DiskStamp = tuple[int, int] | None
"""A file's ``(st_mtime_ns, st_size)``, or None when it does not exist."""


@dataclass(frozen=True, slots=True)
class Pending:
    """The text an applied change produced, and what it was applied to."""

    text: str
    version: int | None
    """The document version the edit was made against; None for a created file."""
    since: float
    created: bool
    disk: DiskStamp = None
    """For a created file: the disk stamp right after the editor created it."""


class Overlay:
    """Pending texts keyed by URI (decoded, so spellings of one URI share an entry)."""

    def __init__(self, *, ttl: float, clock: Callable[[], float]) -> None:
        self.ttl = ttl
        self._clock = clock
        self._pending: dict[str, Pending] = {}

    def record_edit(self, uri: str, version: int | None, text: str) -> None:
        """An edit against ``version`` of an open document was applied, giving ``text``."""
        self._pending[uri_key(uri)] = Pending(text, version, self._clock(), created=False)

    def record_create(self, uri: str, text: str, disk: DiskStamp) -> None:
        """A file was created with ``text`` in the editor; ``disk`` is its stamp afterwards."""
        self._pending[uri_key(uri)] = Pending(text, None, self._clock(), created=True, disk=disk)

    def get(self, uri: str, document: OpenDocument | None, disk: DiskStamp) -> Pending | None:
        """The pending entry for ``uri`` if it is still ahead of the server; stale ones go."""
        key = uri_key(uri)
        pending = self._pending.get(key)
        if pending is None:
            return None
        if self._is_current(pending, document, disk):
            return pending
        del self._pending[key]
        return None

    def is_pending(self, uri: str) -> bool:
        """Whether an entry exists for ``uri`` (without checking it)."""
        return uri_key(uri) in self._pending

    def drop(self, uri: str) -> None:
        """Forget ``uri``'s entry."""
        self._pending.pop(uri_key(uri), None)

    def _is_current(self, pending: Pending, document: OpenDocument | None, disk: DiskStamp) -> bool:
        if pending.created:
            return document is None and disk == pending.disk
        return (
            document is not None
            and document.version == pending.version
            and self._clock() - pending.since <= self.ttl
        )


RETRY = "Read the file again and redo the change against its current content."


def refused(path: str, reason: str | None) -> str:
    """The editor answered ``applied: false``, failed the request, or never answered."""
    why = reason.strip() if reason and reason.strip() else "no reason given"
    return f"The editor refused the change to {path} ({why}). {RETRY}"


def changed_since_read(path: str) -> str:
    """The buffer's text is no longer the text the tool read."""
    return (
        f"{path} changed in the editor after it was read (the user or another change edited it)."
        f" Nothing was written. {RETRY}"
    )


def unconfirmed(path: str, seconds: float) -> str:
    """A previous change was applied, but the editor never reported the resulting text."""
    return (
        f"The editor did not report the result of the previous change to {path} within "
        f"{seconds:g} s, so its current text is unknown. Nothing was written. {RETRY}"
    )


def mismatch(path: str) -> str:
    """The editor said it applied the change, but the text it then reported is not the result."""
    return (
        f"The editor reported the change to {path} as applied, but the buffer's text afterwards"
        " is not the expected result (it was probably being edited at the same time), so the"
        " change counts as failed. The user was told that an undo restores the file."
        f" {RETRY}"
    )


def user_mismatch(path: str) -> str:
    """What the user reads when an applied edit did not produce the text the agent computed."""
    return (
        f"pi_lsp: the agent's edit to {path} did not land as computed (the buffer changed at the"
        " same time). The agent was told the edit failed; an undo restores the file."
    )


def unsaved_changes(path: str, why_disk: str) -> str:
    """A disk write would go behind an editor buffer that holds unsaved changes."""
    return (
        f"{path} has unsaved changes in the editor, and changes go to the disk ({why_disk})."
        " Nothing was written. Ask the user to save or discard the editor's changes, then read"
        " the file again."
    )


DISK_MODE = 'the "editMode" setting is "disk"'
NO_APPLY_EDIT = "the editor does not accept workspace edits"

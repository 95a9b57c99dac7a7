"""What the editor-backed file system needs from an editor, in plain Python (no LSP types).

``EditorBridge`` is the seam between ``EditorFileSystem`` and the LSP server: it answers which
buffers the editor has open (with their unsaved text and version), applies a workspace change
(``workspace/applyEdit`` in the pygls implementation, ``pi_lsp.bridge.pygls_bridge``), and states
what the client can do. The change is described with the small dataclasses below, so this package
and its tests never import pygls or lsprotocol.

Documents are named by ``file://`` URIs. A path becomes ``file:///…`` with every byte outside the
unreserved set and ``/`` percent-encoded as UTF-8 (a space is ``%20``, ``#`` is ``%23``):
``pathlib``'s ``as_uri``, which also spells Windows drives. Clients differ in what else they
encode (VS Code encodes the ``:`` of a Windows drive), so URIs are compared decoded
(``uri_key``), as pygls keys its documents.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
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

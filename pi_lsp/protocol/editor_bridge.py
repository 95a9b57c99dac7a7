"""The editor bridge over pygls: client capabilities, applyEdit parameters, the bridge itself.

The client's workspace-edit capabilities, reduced once to flags (ruff's resolved capabilities).

LSP capability trees are deep and optional; this module reads them once, after ``initialize``,
into a frozen record that ``PyglsEditorBridge`` answers from. Measured client behaviour worth
knowing (Neovim 0.11.4 ``make_client_capabilities()``): ``applyEdit`` true,
``workspaceEdit.resourceOperations`` = rename/create/delete, ``positionEncodings`` =
utf-8/utf-16/utf-32, and **no** ``documentChanges`` or ``changeAnnotationSupport``, so edits to
Neovim go out as unversioned ``changes`` (the file system checks the version just before
sending). VS Code advertises all of them and ``normalizesLineEndings``.

``WorkspaceChange`` (plain Python) to the LSP ``workspace/applyEdit`` parameters.

Shaped by the client's capabilities, as ruff's edit tracker does: versioned ``documentChanges``
when supported (with ``CreateFile`` operations and a change annotation where those are supported
too), else the plain ``changes`` map, which has no versions and no file creation.

``PyglsEditorBridge``: the ``EditorBridge`` of a pygls 2 ``LanguageServer``.

Open documents are the ones the client opened (``didOpen``) and pygls keeps in sync; pygls's
``get_text_document`` of any other URI reads the disk, so membership in ``text_documents`` is
what counts as open. Edits go out as ``workspace/applyEdit``, shaped by the capabilities the
client announced (resolved once, on first use after ``initialize``).

The request gets ``apply_timeout`` seconds. No answer by then counts as a refusal; the pending
request is left alone rather than cancelled, so a late answer completes it normally and is
ignored (pygls 2.1.1 reports "Error in server" to the user when an answer arrives for a request
whose future was cancelled, deps-facts §1.3).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as T
from lsprotocol.types import MessageType, ShowMessageParams
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from pi_lsp.edits.bridge import (
    ApplyOutcome,
    CreateFile,
    OpenDocument,
    TextChange,
    TextWatch,
    WorkspaceChange,
    normal_path,
    path_to_uri,
    uri_key,
    uri_to_path,
)
from pi_lsp.edits.diff import ENCODINGS, Edit, PositionEncoding
from pi_lsp.protocol.language_server import DocumentTextWatch


@dataclass(frozen=True, slots=True, kw_only=True)
class EditorCapabilities:
    """What the client can do with the server's workspace edits."""

    apply_edit: bool = False
    """``workspace.applyEdit``: the client accepts ``workspace/applyEdit`` requests."""
    document_changes: bool = False
    """``workspace.workspaceEdit.documentChanges``: versioned ``TextDocumentEdit`` lists."""
    create_files: bool = False
    """``resourceOperations`` contains ``create`` (and documentChanges is supported)."""
    change_annotations: bool = False
    """``changeAnnotationSupport`` is present (and documentChanges is supported)."""
    normalizes_line_endings: bool = False
    """The client rewrites the line breaks of inserted text to the document's (VS Code)."""
    position_encoding: PositionEncoding = "utf-16"
    """The encoding the server chose at ``initialize`` (pygls picks the client's first)."""

    @classmethod
    def resolve(
        cls, client: T.ClientCapabilities | None, position_encoding: object = None
    ) -> EditorCapabilities:
        """Flags from the client's capabilities and the negotiated position encoding."""
        workspace = client.workspace if client is not None else None
        edit = workspace.workspace_edit if workspace is not None else None
        document_changes = bool(edit is not None and edit.document_changes)
        operations = {_value(kind) for kind in (edit.resource_operations or [])} if edit else set()
        return cls(
            apply_edit=bool(workspace is not None and workspace.apply_edit),
            document_changes=document_changes,
            create_files=document_changes and "create" in operations,
            change_annotations=document_changes
            and edit is not None
            and edit.change_annotation_support is not None,
            normalizes_line_endings=bool(edit is not None and edit.normalizes_line_endings),
            position_encoding=encoding_name(position_encoding),
        )


def encoding_name(value: object) -> PositionEncoding:
    """``PositionEncodingKind`` (or its string) as a name; UTF-16, the default, otherwise."""
    raw = _value(value)
    for name in ENCODINGS:
        if raw == name:
            return name
    return "utf-16"


def _value(member: object) -> object:
    """An enum member's value; anything else as it is."""
    return getattr(member, "value", member)


ANNOTATION_ID = "pi"
"""The one change annotation an edit from pi carries."""


def apply_edit_params(
    change: WorkspaceChange, capabilities: EditorCapabilities
) -> T.ApplyWorkspaceEditParams:
    """The request parameters for ``change``.

    Raises:
        ValueError: the change needs something the client lacks (``CreateFile`` without
            resource operations, or two edit sets for one document in a ``changes`` map).
    """
    if capabilities.document_changes:
        edit = _document_changes(change, capabilities)
    else:
        edit = T.WorkspaceEdit(changes=_changes(change))
    return T.ApplyWorkspaceEditParams(edit=edit, label=change.label)


def _document_changes(change: WorkspaceChange, capabilities: EditorCapabilities) -> T.WorkspaceEdit:
    annotated = change.annotation is not None and capabilities.change_annotations
    annotation_id = ANNOTATION_ID if annotated else None
    operations: list[T.TextDocumentEdit | T.CreateFile | T.RenameFile | T.DeleteFile] = []
    for operation in change.operations:
        if isinstance(operation, CreateFile):
            if not capabilities.create_files:
                raise ValueError("the client cannot create files through workspace edits")
            options = T.CreateFileOptions(overwrite=False, ignore_if_exists=True)
            operations.append(
                T.CreateFile(uri=operation.uri, options=options, annotation_id=annotation_id)
            )
        else:
            operations.append(_text_document_edit(operation, annotation_id))
    annotations = None
    if annotated and change.annotation is not None:
        annotations = {
            ANNOTATION_ID: T.ChangeAnnotation(label=change.annotation, needs_confirmation=False)
        }
    return T.WorkspaceEdit(document_changes=operations, change_annotations=annotations)


def _text_document_edit(change: TextChange, annotation_id: str | None) -> T.TextDocumentEdit:
    document = T.OptionalVersionedTextDocumentIdentifier(uri=change.uri, version=change.version)
    edits: list[T.TextEdit | T.AnnotatedTextEdit | T.SnippetTextEdit] = []
    for edit in change.edits:
        if annotation_id is None:
            edits.append(T.TextEdit(range=_range(edit), new_text=edit.new_text))
        else:
            edits.append(
                T.AnnotatedTextEdit(
                    annotation_id=annotation_id, range=_range(edit), new_text=edit.new_text
                )
            )
    return T.TextDocumentEdit(text_document=document, edits=edits)


def _changes(change: WorkspaceChange) -> dict[str, list[T.TextEdit]]:
    changes: dict[str, list[T.TextEdit]] = {}
    for operation in change.operations:
        if isinstance(operation, CreateFile):
            raise ValueError("file creation needs documentChanges support")
        if operation.uri in changes:
            raise ValueError(f"two edit sets for {operation.uri}")
        changes[operation.uri] = [
            T.TextEdit(range=_range(edit), new_text=edit.new_text) for edit in operation.edits
        ]
    return changes


def _range(edit: Edit) -> T.Range:
    return T.Range(
        start=T.Position(line=edit.start_line, character=edit.start_char),
        end=T.Position(line=edit.end_line, character=edit.end_char),
    )


log = logging.getLogger(__name__)


class PyglsEditorBridge:
    """The editor behind a pygls ``LanguageServer``, as ``EditorFileSystem`` needs it."""

    def __init__(self, server: LanguageServer, *, apply_timeout: float = 10.0) -> None:
        """Wrap ``server``; capabilities are read on first use, after ``initialize``.

        Args:
            server: the running language server.
            apply_timeout: seconds the client has to answer ``workspace/applyEdit``.
        """
        self.server = server
        self.apply_timeout = apply_timeout
        self._capabilities: EditorCapabilities | None = None
        self._indexed: tuple[str, ...] = ()
        self._index: dict[str, str] = {}

    @property
    def capabilities(self) -> EditorCapabilities:
        """The client's resolved capabilities (cached once ``initialize`` has run)."""
        if self._capabilities is None:
            try:
                encoding = self.server.workspace.position_encoding
            except RuntimeError:  # not initialized yet: nothing is known, nothing cached
                return EditorCapabilities()
            self._capabilities = EditorCapabilities.resolve(
                self.server.client_capabilities, encoding
            )
        return self._capabilities

    @property
    def can_apply_edits(self) -> bool:
        """The client accepts ``workspace/applyEdit``."""
        return self.capabilities.apply_edit

    @property
    def document_changes(self) -> bool:
        """Versioned ``documentChanges`` are supported."""
        return self.capabilities.document_changes

    @property
    def create_files(self) -> bool:
        """``CreateFile`` operations are supported."""
        return self.capabilities.create_files

    @property
    def change_annotations(self) -> bool:
        """Change annotations are supported."""
        return self.capabilities.change_annotations

    @property
    def position_encoding(self) -> PositionEncoding:
        """The negotiated position encoding."""
        return self.capabilities.position_encoding

    def open_document(self, path: str) -> OpenDocument | None:
        """The synced buffer for ``path`` if the client opened it."""
        try:
            documents = self.server.workspace.text_documents
        except RuntimeError:
            return None
        document = documents.get(uri_key(path_to_uri(path)))
        if document is None:
            key = self._path_index(documents).get(normal_path(path))
            document = documents.get(key) if key is not None else None
        if document is None:
            return None
        return OpenDocument(uri=document.uri, text=document.source, version=document.version)

    def _path_index(self, documents: dict[str, TextDocument]) -> dict[str, str]:
        """Open documents by normalized path, for URIs spelled unlike ``path_to_uri``'s."""
        keys = tuple(documents)
        if keys != self._indexed:
            self._index = {}
            for key, document in documents.items():
                local = uri_to_path(document.uri)
                if local is not None:
                    self._index[normal_path(local)] = key
            self._indexed = keys
        return self._index

    def watch_text(self, uri: str, version: int | None, expected: str) -> TextWatch | None:
        """Watch the synced document ``uri`` for ``expected`` (None when it is not open)."""
        try:
            document = self.server.workspace.text_documents.get(uri_key(uri))
        except RuntimeError:
            return None
        if document is None or document.version != version:
            return None
        return DocumentTextWatch(document, expected)

    def tell_user(self, message: str) -> None:
        """A warning for the user (``window/showMessage``) and the log."""
        log.warning("%s", message)
        try:
            self.server.window_show_message(
                ShowMessageParams(type=MessageType.Warning, message=message)
            )
        except Exception as exc:  # the transport is gone: the log has it
            log.warning("window/showMessage could not be sent: %s", exc)

    async def apply_edit(self, change: WorkspaceChange) -> ApplyOutcome:
        """Send ``workspace/applyEdit`` and wait for the answer (or ``apply_timeout``)."""
        try:
            params = apply_edit_params(change, self.capabilities)
        except ValueError as exc:
            return ApplyOutcome(False, str(exc))
        try:
            answer = asyncio.wrap_future(self.server.workspace_apply_edit(params))
        except Exception as exc:  # the transport is gone, say: the edit did not go out
            log.warning("workspace/applyEdit could not be sent: %s", exc)
            return ApplyOutcome(False, f"the request could not be sent: {exc}")
        answer.add_done_callback(_consume)
        done, _ = await asyncio.wait({answer}, timeout=self.apply_timeout)
        if not done:
            log.warning("workspace/applyEdit not answered within %s s", self.apply_timeout)
            return ApplyOutcome(False, f"no answer within {self.apply_timeout:g} s")
        return _outcome(answer)


def _consume(answer: asyncio.Future[Any]) -> None:
    """Retrieve a late answer's exception so asyncio never logs it as unretrieved."""
    if not answer.cancelled():
        answer.exception()


def _outcome(answer: asyncio.Future[Any]) -> ApplyOutcome:
    """The editor's answer as an ``ApplyOutcome``; an error answer is a refusal."""
    if answer.cancelled():
        return ApplyOutcome(False, "the request was cancelled")
    error = answer.exception()
    if error is not None:
        return ApplyOutcome(False, f"the editor answered with an error: {error}")
    result = answer.result()
    applied = _field(result, "applied")
    reason = _field(result, "failure_reason") or _field(result, "failureReason")
    return ApplyOutcome(bool(applied), str(reason) if reason else None)


def _field(result: Any, name: str) -> Any:
    """A field of a structured result or of a plain dict."""
    if isinstance(result, dict):
        return result.get(name)
    return getattr(result, name, None)

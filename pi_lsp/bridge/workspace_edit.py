"""``WorkspaceChange`` (plain Python) to the LSP ``workspace/applyEdit`` parameters.

Shaped by the client's capabilities, as ruff's edit tracker does: versioned ``documentChanges``
when supported (with ``CreateFile`` operations and a change annotation where those are supported
too), else the plain ``changes`` map, which has no versions and no file creation.
"""

from __future__ import annotations

from lsprotocol import types as T

from pi_lsp.bridge.capabilities import EditorCapabilities
from pi_lsp.edits.bridge import CreateFile, TextChange, WorkspaceChange
from pi_lsp.edits.diff import Edit

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

"""The client's workspace-edit capabilities, reduced once to flags (ruff's resolved capabilities).

LSP capability trees are deep and optional; this module reads them once, after ``initialize``,
into a frozen record that ``PyglsEditorBridge`` answers from. Measured client behaviour worth
knowing (Neovim 0.11.4 ``make_client_capabilities()``): ``applyEdit`` true,
``workspaceEdit.resourceOperations`` = rename/create/delete, ``positionEncodings`` =
utf-8/utf-16/utf-32, and **no** ``documentChanges`` or ``changeAnnotationSupport``, so edits to
Neovim go out as unversioned ``changes`` (the file system checks the version just before
sending). VS Code advertises all of them and ``normalizesLineEndings``.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as T

from pi_lsp.edits.diff import ENCODINGS, PositionEncoding


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

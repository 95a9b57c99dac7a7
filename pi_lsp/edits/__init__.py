"""Editor-backed file access for the tools: minimal diffs, the editor seam, EditorFileSystem.

No pygls or lsprotocol here (the architecture test checks it): the LSP side lives in
``pi_lsp.protocol.editor_bridge``.
"""

from __future__ import annotations

from pi_lsp.edits.bridge import (
    ApplyOutcome,
    CreateFile,
    EditMode,
    EditorBridge,
    OpenDocument,
    TextChange,
    WorkspaceChange,
    current_tool,
    path_to_uri,
    tool_scope,
    uri_to_path,
)
from pi_lsp.edits.diff import Edit, PositionEncoding, apply_edits, text_edits
from pi_lsp.edits.editor_fs import EditorFileSystem

__all__ = [
    "ApplyOutcome",
    "CreateFile",
    "Edit",
    "EditMode",
    "EditorBridge",
    "EditorFileSystem",
    "OpenDocument",
    "PositionEncoding",
    "TextChange",
    "WorkspaceChange",
    "apply_edits",
    "current_tool",
    "path_to_uri",
    "text_edits",
    "tool_scope",
    "uri_to_path",
]

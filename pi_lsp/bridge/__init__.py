"""The LSP side of editor-backed file access: pygls and lsprotocol live here, not in edits/."""

from __future__ import annotations

from pi_lsp.bridge.capabilities import EditorCapabilities
from pi_lsp.bridge.line_breaks import LspTextDocument, use_lsp_line_breaks
from pi_lsp.bridge.pygls_bridge import PyglsEditorBridge

__all__ = [
    "EditorCapabilities",
    "LspTextDocument",
    "PyglsEditorBridge",
    "use_lsp_line_breaks",
]

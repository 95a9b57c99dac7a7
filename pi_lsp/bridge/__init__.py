"""The LSP side of editor-backed file access: pygls and lsprotocol live here, not in edits/."""

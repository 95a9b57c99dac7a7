"""pygls's buffer copy stays equal to the editor's across form feeds and Unicode separators."""

from __future__ import annotations

from lsprotocol import types as T
from pygls.workspace import Workspace

from pi_lsp.protocol.language_server import LspTextDocument, use_lsp_line_breaks

TEXT = "a\x0cb = 1\u2028x\nc = 2\n"


def change_line_1(workspace: Workspace, uri: str) -> str:
    start, end = T.Position(line=1, character=4), T.Position(line=1, character=5)
    workspace.update_text_document(
        T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        T.TextDocumentContentChangePartial(range=T.Range(start=start, end=end), text="3"),
    )
    return workspace.get_text_document(uri).source


def test_plain_pygls_puts_the_change_on_the_wrong_line() -> None:
    workspace = Workspace(None)
    workspace.put_text_document(T.TextDocumentItem("file:///a.py", "python", 1, TEXT))
    assert change_line_1(workspace, "file:///a.py") != "a\x0cb = 1\u2028x\nc = 3\n"


def test_lsp_line_breaks_apply_changes_where_the_editor_did() -> None:
    workspace = Workspace(None)
    workspace.put_text_document(T.TextDocumentItem("file:///open.py", "python", 1, TEXT))
    use_lsp_line_breaks(workspace)
    workspace.put_text_document(T.TextDocumentItem("file:///later.py", "python", 1, TEXT))
    for uri in ("file:///open.py", "file:///later.py"):
        assert isinstance(workspace.get_text_document(uri), LspTextDocument)
        assert change_line_1(workspace, uri) == "a\x0cb = 1\u2028x\nc = 3\n"

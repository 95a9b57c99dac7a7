"""A small pygls server that exposes EditorFileSystem over test requests (test_pygls_bridge).

Started as a subprocess by pytest-lsp. ``initializationOptions`` may set ``editMode`` and
``applyTimeout``. Requests (params arrive as namedtuples, results go out as dicts):

- ``test/read {path}`` → ``{text}``: ``read_text`` through the editor-backed file system;
- ``test/write {path, content}`` → ``{error}``: ``write_text`` as the ``write`` tool;
- ``test/edit {path, oldText, newText}`` → ``{text, error}``: pi's real ``edit`` tool;
- ``test/readPauseWrite {path, content}`` → ``{error}``: reads, asks the client ``test/pause``
  (the test's user types meanwhile), then writes what it read plus ``content``.

A ``ToolError`` comes back as ``error`` (the text the model would read).
"""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from pi_lsp.edits import EditorFileSystem, tool_scope
from pi_lsp.protocol.editor_bridge import PyglsEditorBridge
from pi_lsp.protocol.language_server import use_lsp_line_breaks
from pi_lsp.tools import EditTool, ToolError

server = LanguageServer(
    "bridge-test", "0.1", text_document_sync_kind=T.TextDocumentSyncKind.Incremental
)
FILES: dict[str, EditorFileSystem] = {}


def files() -> EditorFileSystem:
    return FILES["fs"]


@server.feature(T.INITIALIZE)
def initialize(ls: LanguageServer, params: T.InitializeParams) -> None:
    options: dict[str, Any] = params.initialization_options or {}
    use_lsp_line_breaks(ls.workspace)
    bridge = PyglsEditorBridge(ls, apply_timeout=float(options.get("applyTimeout", 10.0)))
    FILES["fs"] = EditorFileSystem(bridge, edit_mode=options.get("editMode", "editor"))


@server.feature("test/read")
async def read(ls: LanguageServer, params: Any) -> dict[str, Any]:
    return {"text": await files().read_text(params.path)}


@server.feature("test/write")
async def write(ls: LanguageServer, params: Any) -> dict[str, Any]:
    try:
        with tool_scope("write"):
            await files().write_text(params.path, params.content)
    except ToolError as exc:
        return {"error": exc.message}
    return {"error": None}


@server.feature("test/edit")
async def edit(ls: LanguageServer, params: Any) -> dict[str, Any]:
    tool = EditTool(os.path.dirname(params.path), files())
    args = {"path": params.path, "oldText": params.oldText, "newText": params.newText}
    try:
        with tool_scope(tool.name):
            result = await tool.execute(args)
    except ToolError as exc:
        return {"text": None, "error": exc.message}
    return {"text": result.text, "error": None}


@server.feature("test/readPauseWrite")
async def read_pause_write(ls: LanguageServer, params: Any) -> dict[str, Any]:
    try:
        with tool_scope("edit"):
            text = await files().read_text(params.path)
            await ls.protocol.send_request_async("test/pause", {"path": params.path})
            await files().write_text(params.path, text + params.content)
    except ToolError as exc:
        return {"error": exc.message}
    return {"error": None}


if __name__ == "__main__":
    server.start_io()

"""The pi_lsp daemon: a pygls server whose ``pi/…`` methods drive pi sessions and agent turns.

``create_server()`` builds it (no module-level server object); ``serve_stdio`` / ``serve_tcp``
run it. stdout carries protocol messages only: ``sys.stdout`` is pointed at stderr while serving,
so a stray ``print`` (or a library's) cannot corrupt the byte stream. Logs go to stderr, and
warnings also reach the editor as ``window/logMessage``.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from pi_lsp.bridge.pygls_bridge import PyglsEditorBridge
from pi_lsp.daemon import log_to_stderr
from pi_lsp.daemon.workspaces import Folder, Workspaces
from pi_lsp.edits.bridge import EditMode
from pi_lsp.edits.editor_fs import EditorFileSystem
from pi_lsp.protocol import transport
from pi_lsp.protocol.framing import Event, FrameParser
from pi_lsp.protocol.language_server import PiLanguageServer
from pi_lsp.protocol.registry import permission_asker, register
from pi_lsp.session.jsonl import JsonObject, dumps
from pi_lsp.tools import FileSystem

__all__ = ["PiLanguageServer", "create_server", "serve_stdio", "serve_tcp"]


def create_server() -> PiLanguageServer:
    """A fully wired daemon (not yet serving)."""
    server = PiLanguageServer(_workspaces)
    register(server)
    return server


def _workspaces(server: PiLanguageServer) -> Workspaces:
    """The daemon's one :class:`Workspaces`, reporting to ``server``'s editor.

    Events, edits and permission questions all go to that editor.
    """
    protocol = server.protocol

    def sink(session_id: str, seq: int, event: JsonObject) -> None:
        protocol.notify_raw(
            "pi/event", dumps({"sessionId": session_id, "seq": seq, "event": event})
        )

    def edit_mode(path: str) -> EditMode:
        """The ``editMode`` of the folder holding ``path`` (read at every write)."""
        return server.workspaces.folder_of_path(path).settings.editMode

    # One editor file system per connection: it tracks edits in flight and per-file write locks
    # across every session of the editor.
    editor_fs = EditorFileSystem(PyglsEditorBridge(server), edit_mode=edit_mode)

    def file_system(_workspace: Folder, _session_id: str) -> FileSystem:
        return editor_fs

    return Workspaces(
        sink, fs_factory=file_system, asker_factory=lambda sid: permission_asker(server, sid)
    )


def _setup_logging(level: str) -> None:
    root = log_to_stderr(level)
    logging.getLogger("pygls").setLevel(max(logging.WARNING, root.level))


def serve_stdio(
    log_level: str = "warning",
    *,
    stdin: Any = None,
    early: tuple[FrameParser, list[Event], Any] | None = None,
) -> None:
    """Serve the editor on stdin/stdout until it disconnects.

    ``early`` (the frame parser, the events it has read and the id of an ``initialize`` already
    answered) comes from :mod:`pi_lsp.bootstrap` when ``initialize`` was answered before this
    module was imported.
    """
    _setup_logging(log_level)
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but protocol may reach the real stdout
    server = create_server()
    parser, pending, answered = early or (FrameParser(), [], None)
    server.protocol.answered_early = answered
    transport.serve_stdio(server, stdin or sys.stdin.buffer, stdout, parser, pending)


def serve_tcp(port: int, log_level: str = "warning") -> int:
    """Serve one authenticated client on 127.0.0.1:``port`` (never on other interfaces)."""
    _setup_logging(log_level)
    sys.stdout = sys.stderr
    server = create_server()
    return transport.serve_tcp(server, "127.0.0.1", port, server.workspaces.agent_dir)

"""The daemon's server: pygls's LanguageServer holding the daemon state every handler needs.

Handlers receive this one object (pygls passes it as ``ls``), so the protocol layer is typed end
to end: :attr:`PiLanguageServer.workspaces` owns the open sessions and folders,
:attr:`PiLanguageServer.shows_progress` says whether the editor shows ``$/progress``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from pi_lsp import __version__
from pi_lsp.daemon.workspaces import Workspaces
from pi_lsp.protocol.wire import PiProtocol, converter_factory

logger = logging.getLogger("pi_lsp")


class PiLanguageServer(LanguageServer):
    """pygls's server with the daemon's state and quieter error reporting."""

    protocol: PiProtocol

    def __init__(self, build_workspaces: Callable[[PiLanguageServer], Workspaces]) -> None:
        """Build the server, then its :class:`Workspaces` (once: they may need the server)."""
        super().__init__(
            "pi-lsp",
            __version__,
            protocol_cls=PiProtocol,
            converter_factory=converter_factory,
            text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
        )
        self.shows_progress = False
        """The client shows ``$/progress`` (``window.workDoneProgress``), set at initialize."""
        self.workspaces = build_workspaces(self)

    def report_server_error(self, error: Exception, source: object) -> None:
        """Log instead of popping up a message for every failed request (they are answered)."""
        logger.error("%s: %s", getattr(source, "__name__", source), error)

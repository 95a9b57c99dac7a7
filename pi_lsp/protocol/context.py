"""What every protocol handler needs: the pygls server and the daemon's workspaces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_lsp.daemon.workspaces import Workspaces


@dataclass
class ServerContext:
    """Shared state of one daemon, created with the server."""

    server: Any
    """The :class:`pi_lsp.server.PiLanguageServer` (typed loosely: pygls is untyped here)."""
    workspaces: Workspaces
    progress: bool = False
    """The client shows ``$/progress`` (``window.workDoneProgress``)."""
    flags: dict[str, bool] = field(default_factory=dict)

"""The daemon's domain side: open sessions, their event streams and views, workspace folders.

Plain Python like the rest of pi_lsp's core: no pygls, no lsprotocol. ``pi_lsp/protocol/`` maps
the ``pi/…`` JSON-RPC methods onto these classes, ``pi_lsp/acp/`` the ACP methods.
"""

from __future__ import annotations

import logging
import sys


def log_to_stderr(level: str) -> logging.Logger:
    """Send the process's logs to stderr at ``level``; returns the root logger.

    Both faces (LSP and ACP) serve their protocol on stdout, so logs must never go there.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level.upper())
    return root

"""pi's session memory: the append-only JSONL tree, its index, context building and listing.

Plain Python; never imports pygls or lsprotocol (see tests/unit/test_architecture.py).
"""

from pi_lsp.session.appends import ABSENT
from pi_lsp.session.context import SessionContext, build_context
from pi_lsp.session.jsonl import Diagnostic, Record, SessionFileError
from pi_lsp.session.store import SessionStore
from pi_lsp.session.tree import EntryNotFoundError, path_to_root

__all__ = [
    "ABSENT",
    "Diagnostic",
    "EntryNotFoundError",
    "Record",
    "SessionContext",
    "SessionFileError",
    "SessionStore",
    "build_context",
    "path_to_root",
]

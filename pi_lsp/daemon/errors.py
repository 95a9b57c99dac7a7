"""Domain errors as JSON-RPC error codes, shared by both faces (LSP and ACP).

One code per kind of failure; the message (the exception's text, bounded) says what to do.
The faces turn ``(code, message)`` into their own error objects.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.agent import AgentBusyError, NoModelError
from pi_lsp.compaction.models import CompactionError
from pi_lsp.daemon.concurrency import SessionBusyError
from pi_lsp.daemon.workspaces import UnknownFolderError, UnknownSessionError
from pi_lsp.session import EntryNotFoundError, SessionFileError

UNKNOWN_SESSION = -32001
UNKNOWN_ENTRY = -32002
BUSY_ELSEWHERE = -32003
BUSY = -32004
NO_MODEL = -32005
COMPACTION = -32006
SESSION_FILE = -32007
UNKNOWN_FOLDER = -32008
INVALID_REQUEST = -32009

CODES: list[tuple[type[BaseException], int]] = [
    (UnknownSessionError, UNKNOWN_SESSION),
    (EntryNotFoundError, UNKNOWN_ENTRY),
    (SessionBusyError, BUSY_ELSEWHERE),
    (AgentBusyError, BUSY),
    (NoModelError, NO_MODEL),
    (CompactionError, COMPACTION),
    (SessionFileError, SESSION_FILE),
    (FileNotFoundError, SESSION_FILE),
    (OSError, SESSION_FILE),  # a path the system refuses (too long, not allowed, a directory)
    (UnknownFolderError, UNKNOWN_FOLDER),
    (ValueError, INVALID_REQUEST),
]
"""Checked in order (the first match wins)."""


def error_code(exc: BaseException) -> int | None:
    """The code of a known domain error, None for anything unexpected."""
    return next((code for kind, code in CODES if isinstance(exc, kind)), None)


def bounded(message: str, limit: int = 1000) -> str:
    """``message`` cut to ``limit`` characters, saying how long it was.

    Messages echo what the editor sent (an unknown session id, folder or path; one problem per
    bad list item): a 50,000-character id must not come back as a 50 KB error, nor go to the
    log as one line (an editor reading stderr line by line may choke on it; pytest-lsp's reader
    did, and the daemon then blocked writing its log).
    """
    if len(message) <= limit:
        return message
    return f"{message[:limit]}… ({len(message)} characters)"


def not_unicode(value: Any) -> str | None:
    r"""The path (``images.0.data``) of the first string in ``value`` that is not valid Unicode.

    JSON's ``\ud800`` escapes can carry lone UTF-16 surrogates, which Python keeps in ``str``
    but no UTF-8 writer accepts: such a prompt would be stored, then break every event and view
    that shows it. Params are checked (after validation, so ignored fields do not count).
    """
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return path or "params"
        elif isinstance(item, dict):
            stack += [(f"{path}.{k}" if path else str(k), v) for k, v in reversed(item.items())]
        elif isinstance(item, list | tuple):
            stack += [
                (f"{path}.{i}" if path else str(i), v) for i, v in reversed(list(enumerate(item)))
            ]
    return None

"""Domain errors as JSON-RPC errors: one code per kind, the message says what to do.

The codes and the checks are protocol-free (:mod:`pi_lsp.daemon.errors`, shared with the ACP
face); this module makes pygls exceptions of them.
"""

from __future__ import annotations

from pydantic import ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from pi_lsp.daemon.errors import (
    BUSY,
    BUSY_ELSEWHERE,
    CODES,
    COMPACTION,
    INVALID_REQUEST,
    NO_MODEL,
    SESSION_FILE,
    UNKNOWN_ENTRY,
    UNKNOWN_FOLDER,
    UNKNOWN_SESSION,
    bounded,
    error_code,
    not_unicode,
)

__all__ = [
    "BUSY",
    "BUSY_ELSEWHERE",
    "CODES",
    "COMPACTION",
    "INVALID_REQUEST",
    "NO_MODEL",
    "SESSION_FILE",
    "UNKNOWN_ENTRY",
    "UNKNOWN_FOLDER",
    "UNKNOWN_SESSION",
    "as_rpc_error",
    "bounded",
    "invalid_params",
    "not_unicode",
]


def invalid_params(exc: ValidationError) -> JsonRpcInvalidParams:
    """``-32602`` naming every bad field."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {error['msg']}"
        for error in exc.errors()
    ]
    return JsonRpcInvalidParams(bounded("Invalid params: " + "; ".join(problems)))


def as_rpc_error(exc: BaseException) -> JsonRpcException | None:
    """The JSON-RPC error for a known domain error, None for anything unexpected."""
    code = error_code(exc)
    return None if code is None else JsonRpcException(bounded(str(exc)), code)

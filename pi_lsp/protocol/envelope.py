"""JSON-RPC 2.0 envelopes: what a parsed body must look like before pygls sees it.

pygls structures the top-level object with ``cls(**obj)``-style hooks and raises, unanswered,
on what it did not expect: a request without ``params`` (valid JSON-RPC), an extra top-level
key, ``"method": 5``, a batch. :func:`check` turns every body into either a clean message
(only ``jsonrpc``, ``id``, ``method``, ``params``/``result``/``error``; ``params`` ``[]`` read
as ``{}``, which is what Neovim sends for an empty Lua table) or the error response JSON-RPC
requires (-32600 with the request's id when it can be told, else null). Batches are refused
with one -32600: LSP has none. Standard library only (the bootstrap uses it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
"""The body is not JSON, or the frame around it is broken (JSON-RPC)."""
INVALID_REQUEST = -32600
"""Not a JSON-RPC request or notification; also any request after ``shutdown`` (JSON-RPC)."""
METHOD_NOT_FOUND = -32601
SERVER_NOT_INITIALIZED = -32002
"""A request before ``initialize`` (LSP's code)."""
UNAUTHORIZED = -32010
"""A TCP client whose ``initialize`` did not carry the daemon's token."""
MAX_METHOD_ECHO = 200
"""Characters of an unknown method name repeated in an error message."""


@dataclass(frozen=True)
class Refusal:
    """The error response to send instead of dispatching."""

    response: dict[str, Any]


def error_response(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def short(text: str, limit: int = MAX_METHOD_ECHO) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check(value: Any) -> dict[str, Any] | Refusal | None:
    """A clean message, the refusal to send, or None (a malformed response: never answered)."""
    if isinstance(value, list):
        what = "an empty batch" if not value else f"a batch of {len(value)}"
        text = (
            f"Invalid Request: {what}; batches are not supported (LSP has none): "
            "send each message in its own Content-Length frame"
        )
        return Refusal(error_response(None, INVALID_REQUEST, text))
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        text = f"Invalid Request: a message must be a JSON object, not {kind}"
        return Refusal(error_response(None, INVALID_REQUEST, text))
    has_id = "id" in value
    msg_id = value.get("id")
    reply_id = msg_id if _valid_id(msg_id) else None

    def refuse(problem: str) -> Refusal:
        return Refusal(error_response(reply_id, INVALID_REQUEST, f"Invalid Request: {problem}"))

    if "method" not in value:
        if "result" in value or "error" in value:  # a response to one of the daemon's requests
            if value.get("jsonrpc") != "2.0" or not (_valid_id(msg_id) or msg_id is None):
                return None  # JSON-RPC: a response is never answered
            key = "error" if "error" in value else "result"
            return {"jsonrpc": "2.0", "id": msg_id, key: value[key]}
        return refuse("no method (and not a response)")
    if value.get("jsonrpc") != "2.0":
        return refuse('"jsonrpc" must be "2.0"')
    method = value["method"]
    if not isinstance(method, str):
        return refuse(f"method must be a string, not {type(method).__name__}")
    if has_id and not _valid_id(msg_id):
        return refuse("id must be an integer or a string")
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if has_id:
        message["id"] = msg_id
    if "params" in value:  # absent stays absent: LSP's typed params then take their defaults
        params = value["params"]
        message["params"] = {} if isinstance(params, list) and not params else params
    return message

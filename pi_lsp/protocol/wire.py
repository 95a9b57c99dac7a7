"""JSON-RPC framing tweaks on top of pygls: pre-encoded results and notifications.

Big results (a 22k-entry tree) and the stream of agent events are encoded once with msgspec and
written as they are, instead of pygls's ``json.dumps`` of nested objects. Late answers to
server-to-client requests that were already given up on (cancelled or timed out) are dropped
instead of raising inside pygls (a known pygls 2.1 problem, see ``../shared/guides``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any

from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)

from pi_lsp.session.jsonl import dumps

logger = logging.getLogger(__name__)
_encode = dumps  # msgspec, or escapes for lone surrogates
_pending: set[asyncio.Future[Any]] = set()


class RawJson:
    """A result that is already JSON (bytes)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    @classmethod
    def of(cls, value: Any) -> RawJson:
        """Encode a JSON-able value (pydantic models are dumped by alias first)."""
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json", by_alias=True)
        return cls(_encode(value))


def converter_factory() -> Any:
    """pygls's converter, with custom-method params and results kept as plain dicts."""
    converter = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: Any, cls: type) -> Any:
        return cls(**obj)

    for cls in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(cls, keep)
    return converter


class PiProtocol(LanguageServerProtocol):
    """pygls's LSP protocol plus raw JSON writes and tolerance of late answers."""

    answered_early: Any = None
    """Id of an ``initialize`` already answered by :mod:`pi_lsp.bootstrap` (pygls's own answer
    to it is dropped)."""

    def _handle_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            logger.debug("dropped a late answer to request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)

    def _send_data(self, data: Any) -> None:
        if self.answered_early is not None and getattr(data, "id", None) == self.answered_early:
            self.answered_early = None
            return
        result = getattr(data, "result", None)
        if isinstance(result, RawJson) and getattr(data, "error", None) is None:
            head = b'{"jsonrpc":"2.0","id":' + json.dumps(data.id).encode() + b',"result":'
            self.write_raw(head + result.data + b"}")
            return
        super()._send_data(data)

    def notify_raw(self, method: str, params: bytes) -> None:
        """Send a notification whose params are already JSON."""
        head = b'{"jsonrpc":"2.0","method":' + json.dumps(method).encode() + b',"params":'
        self.write_raw(head + params + b"}")

    def write_raw(self, body: bytes) -> None:
        """Frame and write one message body."""
        if self.writer is None:
            logger.error("no transport to send on")
            return
        header = (
            f"Content-Length: {len(body)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        ).encode("ascii")
        try:
            written = self.writer.write(header + body)
            if inspect.isawaitable(written):
                _pending.add(task := asyncio.ensure_future(written))
                task.add_done_callback(_pending.discard)
        except BrokenPipeError:
            logger.warning("the editor closed the connection")

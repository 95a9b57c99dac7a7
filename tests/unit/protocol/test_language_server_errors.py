"""Errors leave the daemon without tracebacks (pygls puts one in `data` for internal errors)."""

from __future__ import annotations

import json
import sys
from typing import Any

from pygls.exceptions import JsonRpcInternalError

from pi_lsp.protocol.framing import FrameParser, Message
from pi_lsp.protocol.registry import create_server


class _Writer:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass


def _sent(writer: _Writer) -> list[Any]:
    return [e.value for e in FrameParser().feed(writer.data) if isinstance(e, Message)]


def test_an_internal_error_is_sent_without_its_traceback() -> None:
    server = create_server()
    writer = _Writer()
    server.protocol.set_writer(writer)
    try:
        raise ValueError("x" * 5000)
    except ValueError:
        error = JsonRpcInternalError.of(sys.exc_info())
    assert error.data  # pygls puts the traceback there
    server.protocol._send_response(7, error=error.to_response_error())
    [message] = _sent(writer)
    assert message["id"] == 7 and "data" not in message["error"], message
    assert len(message["error"]["message"]) < 1100
    assert "Traceback" not in json.dumps(message)

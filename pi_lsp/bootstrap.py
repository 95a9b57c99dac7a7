"""Answer ``initialize`` before the heavy imports, then hand the stream to the real server.

Importing pygls and lsprotocol takes longer than an editor should wait for ``initialize`` (about
a third of a second on an idle machine, seconds on a busy one). This module, which imports only
the standard library, reads the first message; if it is ``initialize`` it answers at once with the
capabilities the daemon always has, then the caller imports the server and hands it the frame parser
and the events read so far, so pygls initializes exactly as usual (its own, second answer is
dropped). Anything unexpected (not ``initialize`` first, bad framing) is handed over the same way
and answered by the server. Framing and envelope checks are the server's own
(:mod:`pi_lsp.protocol.framing`, :mod:`pi_lsp.protocol.framing`, standard library only).
"""

from __future__ import annotations

import json
from typing import Any, BinaryIO

from pi_lsp.protocol.framing import Event, FrameParser, Message, check

SUPPORTED_ENCODINGS = ("utf-8", "utf-16", "utf-32")


def read_first(stream: BinaryIO, parser: FrameParser) -> list[Event]:
    """Read until the first framing event (or the end of the stream)."""
    while True:
        data = stream.read1(65536)  # type: ignore[attr-defined]
        if not data:
            return []
        events = parser.feed(data)
        if events:
            return events


def position_encoding(params: dict[str, Any]) -> str:
    """pygls's choice: the client's first supported encoding, else UTF-16."""
    general = (params.get("capabilities") or {}).get("general") or {}
    for encoding in general.get("positionEncodings") or ():
        if encoding in SUPPORTED_ENCODINGS:
            return str(encoding)
    return "utf-16"


def initialize_result(params: dict[str, Any], version: str) -> dict[str, Any]:
    """The daemon's capabilities (what pygls computes for its registered features)."""
    return {
        "capabilities": {
            "positionEncoding": position_encoding(params),
            "textDocumentSync": {"openClose": True, "change": 2, "save": False},
            "executeCommandProvider": {"commands": []},
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
            },
        },
        "serverInfo": {"name": "pi-lsp", "version": version},
    }


def frame(body: bytes) -> bytes:
    """An LSP message with its headers."""
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def early_initialize(
    stdin: BinaryIO, stdout: BinaryIO, version: str
) -> tuple[FrameParser, list[Event], Any]:
    """Answer ``initialize`` now; returns the parser, the events read and the answered id.

    The events (the ``initialize`` included) are handed to the server as they are, so pygls
    initializes exactly as usual; its own answer to that id is dropped.
    """
    parser = FrameParser()
    events = read_first(stdin, parser)
    answered = None
    first = events[0] if events else None
    message = check(first.value) if isinstance(first, Message) else None
    if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
        params = message.get("params") or {}
        result = initialize_result(params if isinstance(params, dict) else {}, version)
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        stdout.write(frame(body.encode("utf-8")))
        stdout.flush()
        answered = message["id"]
    return parser, events, answered

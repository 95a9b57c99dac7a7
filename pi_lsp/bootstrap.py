"""Answer ``initialize`` before the heavy imports, then hand the stream to the real server.

Importing pygls and lsprotocol takes longer than an editor should wait for ``initialize`` (about
a third of a second on an idle machine, seconds on a busy one). This module, which imports only
the standard library, reads the first message; if it is ``initialize`` it answers at once with the
capabilities the daemon always has, then the caller imports the server and gives it a reader that
replays that first message, so pygls initializes exactly as usual (its own, second answer is
dropped). Anything unexpected (not ``initialize`` first, bad framing) is replayed untouched and
pygls handles it as it would have.
"""

from __future__ import annotations

import json
from typing import Any, BinaryIO

SUPPORTED_ENCODINGS = ("utf-8", "utf-16", "utf-32")


def read_message(stream: BinaryIO) -> tuple[bytes, Any]:
    """One framed message: its raw bytes (headers and body) and the parsed body, or None."""
    raw = b""
    length = None
    while True:
        line = stream.readline()
        raw += line
        if not line or line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return raw, None
    body = stream.read(length)
    raw += body
    try:
        return raw, json.loads(body)
    except ValueError:
        return raw, None


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


class ReplayReader:
    """``readline``/``read`` over already consumed bytes, then the underlying stream."""

    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        self._prefix = prefix
        self._stream = stream

    def readline(self) -> bytes:
        """A line, from the replayed bytes first."""
        if self._prefix:
            end = self._prefix.find(b"\n")
            if end >= 0:
                line, self._prefix = self._prefix[: end + 1], self._prefix[end + 1 :]
                return line
            line, self._prefix = self._prefix, b""
            return line + self._stream.readline()
        return self._stream.readline()

    def read(self, n: int) -> bytes:
        """``n`` bytes, from the replayed bytes first."""
        if self._prefix:
            taken, self._prefix = self._prefix[:n], self._prefix[n:]
            if len(taken) < n:
                taken += self._stream.read(n - len(taken))
            return taken
        return self._stream.read(n)


def early_initialize(stdin: BinaryIO, stdout: BinaryIO, version: str) -> tuple[ReplayReader, Any]:
    """Answer ``initialize`` now; returns the reader to serve from and the answered request id."""
    raw, message = read_message(stdin)
    answered = None
    if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
        params = message.get("params") or {}
        result = initialize_result(params if isinstance(params, dict) else {}, version)
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        stdout.write(frame(body.encode("utf-8")))
        stdout.flush()
        answered = message["id"]
    return ReplayReader(raw, stdin), answered

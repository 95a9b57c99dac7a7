"""The LSP wire before pygls: Content-Length frames, checked JSON-RPC envelopes, the early answer.

Standard library only, so that :func:`early_initialize` can answer ``initialize`` before pygls is
imported; the server then reads its input through the same parser and checks.

**Frames.** pygls's reader trusts every header: ``Content-Length: abc`` or ``1e12`` raised out of
the read loop (the daemon died), ``-1`` or ``8000000000`` waited for bytes that never come, and
one wrong length left the stream out of sync for good. :class:`FrameParser` is sans-IO: it is fed
bytes (:meth:`FrameParser.feed`) and returns what it found: :class:`Message` (a parsed JSON
body), :class:`BadFrame` (answered with -32700 by the transport) or :class:`HttpRequest` (a web
page's ``fetch``: refused, never run). After a bad frame it resynchronises on the next
``Content-Length`` header; nothing it buffers grows past :data:`MAX_BODY` plus one header block.

**Envelopes.** pygls structures the top-level object with ``cls(**obj)``-style hooks and raises,
unanswered, on what it did not expect: a request without ``params`` (valid JSON-RPC), an extra
top-level key, ``"method": 5``, a batch. :func:`check` turns every body into either a clean
message (only ``jsonrpc``, ``id``, ``method``, ``params``/``result``/``error``; ``params`` ``[]``
read as ``{}``, which is what Neovim sends for an empty Lua table) or the error response
JSON-RPC requires (-32600 with the request's id when it can be told, else null). Batches are
refused with one -32600: LSP has none.

**The early answer.** Importing pygls and lsprotocol takes longer than an editor should wait for
``initialize`` (about a third of a second on an idle machine, seconds on a busy one).
:func:`early_initialize` reads the first message; if it is ``initialize`` it answers at once with
the capabilities the daemon always has (a test pins them to pygls's own), then the caller imports
the server and hands it the frame parser and the events read so far, so pygls initializes
exactly as usual (its own, second answer is dropped). Anything unexpected (not ``initialize``
first, bad framing) is handed over the same way and answered by the server.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

MAX_BODY = 64 * 1024 * 1024
"""Largest body accepted (bytes); a bigger frame is skipped and reported."""
MAX_HEADER_BLOCK = 8192
"""Largest header block (bytes, all lines)."""
_HEADER = re.compile(rb"content-length\s*:", re.IGNORECASE)
_HTTP_REQUEST = re.compile(rb"^[A-Z]{3,10} \S+ HTTP/\d(\.\d)?\r?$")
_FIELD = re.compile(rb"^([!-9;-~]+)[ \t]*:[ \t]*(.*?)[ \t]*\r?$")


@dataclass(frozen=True)
class Message:
    """A frame whose body is JSON."""

    value: Any


@dataclass(frozen=True)
class BadFrame:
    """A frame (or bytes between frames) that could not be used; ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class HttpRequest:
    """An HTTP request line where a header was expected (the request is never run)."""

    line: str


Event = Message | BadFrame | HttpRequest


class FrameParser:
    """Bytes in, events out; see the module docstring."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self.max_body = max_body
        self._buffer = bytearray()
        self._pos = 0
        """Where unread bytes start in ``_buffer`` (compacted once per :meth:`feed`)."""
        self._length: int | None = None
        """Body length of the frame whose headers were read; None while reading headers."""
        self._scanning = False
        """Skipping bytes until the next ``Content-Length`` header (after a bad frame)."""
        self._http = False
        """Inside an HTTP request's header block (skipped up to its blank line)."""
        self._quiet = False
        """Resynchronising: a false match of the header pattern is not reported again."""

    @property
    def buffered(self) -> int:
        """Bytes received and not yet used."""
        return len(self._buffer) - self._pos

    def feed(self, data: bytes) -> list[Event]:
        """Add bytes; returns every event they complete."""
        if self._pos:
            del self._buffer[: self._pos]
            self._pos = 0
        self._buffer += data
        events: list[Event] = []
        while (event := self._next()) is not None:
            if isinstance(event, Message | BadFrame | HttpRequest):
                events.append(event)
        return events

    def _next(self) -> Event | object | None:
        """One step: an event, ``_MORE`` (progress without an event) or None (need bytes)."""
        if self._http:
            return self._skip_http_headers()
        if self._scanning:
            return self._scan()
        if self._length is not None:
            start = self._pos
            if len(self._buffer) - start < self._length:
                return None
            self._pos = start + self._length
            self._length = None
            return self._parse(bytes(self._buffer[start : self._pos]), start)
        return self._headers()

    def _scan(self) -> object | None:
        match = _HEADER.search(self._buffer, self._pos)
        if match is None:
            keep = len(b"content-length:") - 1
            self._pos = max(self._pos, len(self._buffer) - keep)
            return None
        self._pos = match.start()
        self._scanning = False
        return _MORE

    def _skip_http_headers(self) -> object | None:
        """Drop an HTTP request's header lines, up to and including the blank line."""
        buffer, pos = self._buffer, self._pos
        ends = [(f, len(e)) for e in (b"\n\r\n", b"\n\n") if (f := buffer.find(e, pos)) >= 0]
        if not ends:
            self._pos = max(pos, len(buffer) - 2)
            return None
        found, size = min(ends)
        self._pos = found + size
        self._http = False
        return _MORE

    def _bad(self, reason: str, *, framed: bool = False) -> BadFrame | object:
        """Skip a byte and resynchronise, reporting ``reason`` once per bad stretch.

        A failure that is not even a header block (``framed`` False) found while already
        resynchronising is text inside a skipped body that happens to say ``Content-Length:``:
        not reported again.
        """
        self._pos += 1
        self._scanning = True
        if self._quiet and not framed:
            return _MORE
        self._quiet = True
        return BadFrame(reason)

    def _headers(self) -> Event | object | None:
        buffer = self._buffer
        while buffer[self._pos : self._pos + 1] == b"\n" or (
            buffer[self._pos : self._pos + 2] == b"\r\n"
        ):  # blank lines between frames
            self._pos += 1 if buffer[self._pos] == 0x0A else 2
        pos = self._pos
        limit = pos + MAX_HEADER_BLOCK + 3
        end = buffer.find(b"\n\r\n", pos, limit)
        end_lf = buffer.find(b"\n\n", pos, end + 2 if end >= 0 else limit)  # only if earlier
        ends = [e for e in (end, end_lf) if e >= 0]
        if not ends:
            if len(buffer) - pos > MAX_HEADER_BLOCK:
                return self._bad("header block too long or not a header")
            newline = buffer.find(b"\n", pos, limit)
            first = bytes(buffer[pos:newline]) if newline >= 0 else None
            if first is not None and _HTTP_REQUEST.match(first):
                return self._http_request(first)
            if first is not None and not _FIELD.match(first):
                return self._bad(f"not a header line: {_show(first)}")
            return None
        stop = min(ends)
        size = stop - pos + (3 if stop == end else 2)
        if size > MAX_HEADER_BLOCK:
            return self._bad("header block too long")
        lines = bytes(buffer[pos:stop]).split(b"\n")
        if _HTTP_REQUEST.match(lines[0]):
            return self._http_request(lines[0])
        length: int | None = None
        for line in lines:
            field = _FIELD.match(line)
            if field is None:
                return self._bad(f"not a header line: {_show(line)}")
            if field.group(1).lower() != b"content-length":
                continue
            value = field.group(2)
            if not value.isdigit() or (length is not None and int(value) != length):
                return self._bad(f"bad Content-Length: {_show(value)}", framed=True)
            length = int(value)
        if length is None:
            return self._bad("a header block without Content-Length", framed=True)
        if length > self.max_body:
            return self._bad(
                f"message too large ({length} bytes, limit {self.max_body})", framed=True
            )
        self._pos = pos + size
        self._length = length
        self._quiet = False
        return _MORE

    def _http_request(self, line: bytes) -> HttpRequest:
        """Skip the request's headers (its ``Content-Length`` must not frame a message)."""
        self._pos += len(line)  # the newline stays: the header block starts with it
        self._http = True
        self._scanning = self._quiet = True
        return HttpRequest(_show(line))

    def _parse(self, body: bytes, start: int) -> Event:
        try:
            return Message(json.loads(body))
        except (ValueError, RecursionError) as exc:
            # A wrong Content-Length swallowed (part of) the next frame: look for it inside.
            self._pos = start + min(1, len(body))  # an empty body has nothing to skip
            self._scanning = self._quiet = True
            return BadFrame(f"body is not JSON: {_show(str(exc).encode())}")


_MORE = object()


def _show(data: bytes, limit: int = 80) -> str:
    text = data.decode("utf-8", "replace").rstrip("\r")
    return repr(text if len(text) <= limit else text[:limit] + "…")


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


# ----------------------------------------------------------------- the early answer

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

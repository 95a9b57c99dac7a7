"""Hypothesis strategies for protocol input: frames, broken frames, envelopes, noise.

Shared by the frame parser's unit properties and the property test against a real daemon.
Declared lengths stay small (at most :data:`MAX_DECLARED`), so that :func:`resync_padding`
always completes whatever frame an example left open.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

MAX_DECLARED = 4096
"""Largest plausible Content-Length generated (bigger ones are refused at once anyway)."""

METHODS = [
    "pi/sessions/list",
    "pi/session/state",
    "pi/models/nothing",
    "initialize",
    "initialized",
    "shutdown",
    "$/cancelRequest",
    "$/unknown",
    "textDocument/hover",
]
"""Methods an example may call: cheap ones, unknown ones and lifecycle ones (never ``exit``,
which the daemon test sends on purpose)."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

envelopes = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": st.integers(0, 10**6)
        | st.text(max_size=6)
        | st.none()
        | st.floats(0, 1)
        | st.booleans(),
        "method": st.sampled_from(METHODS) | st.text(max_size=12) | st.integers(),
        "params": json_values,
        "result": json_values,
        "error": json_values,
        "extra": json_values,
    },
)
"""Objects that are sometimes JSON-RPC messages and often almost."""

requests = st.builds(
    lambda msg_id, method, params: {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": method,
        "params": params,
    },
    st.integers(0, 10**6),
    st.sampled_from(METHODS),
    st.just({})
    | st.just([])
    | st.dictionaries(
        st.sampled_from(["sessionId", "folder", "x"]), st.text(max_size=8), max_size=2
    ),
)


def frame(
    body: bytes, length: int | str | None = None, newline: bytes = b"\r\n", extra: bytes = b""
) -> bytes:
    """``body`` behind a header block (``length`` as given, else the true length)."""
    value = str(len(body) if length is None else length).encode()
    return b"Content-Length: " + value + newline + extra + newline + body


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


bodies = (
    envelopes.map(_dumps)
    | requests.map(_dumps)
    | st.lists(requests | envelopes, max_size=3).map(_dumps)
    | json_values.map(_dumps)
    | st.binary(max_size=40)
)

good_frames = bodies.map(frame)
wrong_length_frames = st.builds(
    lambda body, delta: frame(body, max(0, len(body) + delta)), bodies, st.integers(-30, 30)
)
odd_headers = st.builds(
    frame,
    bodies,
    st.sampled_from(["abc", "1e12", "-1", "8000000000", " 12", "", "0x10", "99999999999999999999"])
    | st.integers(0, MAX_DECLARED),
    st.sampled_from([b"\r\n", b"\n"]),
    st.sampled_from(
        [
            b"",
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
            b"X: y\r\n",
            b"bad header\r\n",
            b"Content-Length: 3\r\n",
        ]
    ),
)
http = st.sampled_from(
    [
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}",
        b"GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
        b"OPTIONS * HTTP/1.1\r\n\r\n",
    ]
)
noise = st.binary(max_size=120) | st.sampled_from(
    [b"\r\n", b"\r\n\r\n", b"Content-Length:", b"Content-Length: 5\r\n"]
)

chunks = st.one_of(good_frames, wrong_length_frames, odd_headers, http, noise)
examples = st.lists(chunks, min_size=1, max_size=8)


def resync_padding() -> bytes:
    """Bytes after which the parser is at the start of a frame, whatever came before.

    Spaces complete any body still expected (declared lengths are at most
    :data:`MAX_DECLARED`) and are not a header; the blank line ends an HTTP header block being
    skipped.
    """
    return b" " * (MAX_DECLARED + 10) + b"\r\n\r\n"

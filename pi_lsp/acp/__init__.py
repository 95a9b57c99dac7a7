"""The ACP face: ``pi-lsp --acp`` serves the Agent Client Protocol (v1) over stdio.

The only package that imports the ``acp`` SDK. It maps ACP's methods onto the same shared layer
the LSP face uses (:mod:`pi_lsp.daemon`: workspaces, live sessions and their event streams) and
pi's events onto ``session/update`` notifications. Nothing below it knows ACP exists.

This package's own module answers ``initialize`` before the heavy imports, so it imports only
``json`` and ``os`` (a test checks it). Importing the SDK's generated models and the daemon
takes about half a second, and asyncio alone tens of milliseconds on a loaded machine; an
editor spawning the agent should not wait for them. :func:`early_initialize` reads the first
line straight from the stdin file descriptor (no Python buffering, so nothing beyond it is
consumed by mistake); if it is an ``initialize`` request it is answered at once with
:func:`initialize_result`, the agent's one definition of its capabilities. The line (and
anything read with it) is then handed to the real server (:mod:`pi_lsp.acp.server`), which runs
its own ``initialize`` handler for the client's capabilities; its second answer to the same id
is dropped by the transport.
"""

from __future__ import annotations

import json
import os
from typing import Any

PROTOCOL_VERSION = 1
RequestId = int | str
"""A JSON-RPC request id (never a bool, although JSON's ``true`` parses as an int subclass)."""


def initialize_result(version: str) -> dict[str, Any]:
    """The ``initialize`` result: protocol 1, what pi-lsp supports, no authentication."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": False, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "fork": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "pi-lsp", "title": "pi (pi-lsp)", "version": version},
    }


def read_first_line(fd: int) -> bytes:
    """Bytes from ``fd`` up to and including the first newline (or EOF), plus what came with it."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def early_initialize(stdin_fd: int, stdout_fd: int, version: str) -> tuple[bytes, RequestId | None]:
    """Answer ``initialize`` if it comes first; returns the bytes read and the answered id."""
    data = read_first_line(stdin_fd)
    line = data.split(b"\n", 1)[0]
    try:
        message = json.loads(line)
    except ValueError:
        return data, None
    if not (isinstance(message, dict) and message.get("method") == "initialize"):
        return data, None
    request_id = message.get("id")
    params = message.get("params")
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        return data, None
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), int):
        return data, None  # let the SDK answer invalid params
    answer = {"jsonrpc": "2.0", "id": request_id, "result": initialize_result(version)}
    body = (json.dumps(answer, separators=(",", ":")) + "\n").encode("utf-8")
    view = memoryview(body)
    while view:
        view = view[os.write(stdout_fd, view) :]
    return data, request_id

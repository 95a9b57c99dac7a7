"""Answer ACP's ``initialize`` before the heavy imports (standard library only).

Importing the ACP SDK's generated models and the daemon takes about half a second; an editor
spawning the agent should not wait that long for ``initialize``. The first line is read straight
from the stdin file descriptor (no Python buffering, so nothing beyond it is consumed by mistake);
if it is an ``initialize`` request it is answered at once with :func:`initialize_result`, the
agent's one definition of its capabilities. The line (and anything read with it) is then handed
to the real server, which runs its own ``initialize`` handler for the client's capabilities; its
second answer to the same id is dropped by the transport.
"""

from __future__ import annotations

import json
import os
from typing import Any

PROTOCOL_VERSION = 1


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


def early_initialize(stdin_fd: int, stdout_fd: int, version: str) -> tuple[bytes, Any]:
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

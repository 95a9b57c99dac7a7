"""``pi-lsp --tcp PORT`` end to end: a plain TCP client speaking LSP's base protocol.

The daemon must listen on 127.0.0.1 only (an agent that edits files and runs commands must not
be reachable from the network), answer ``initialize``, keep stdout free of anything (protocol
messages go over the socket) and exit with 0 after ``shutdown`` and ``exit``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from pathlib import Path
from typing import Any

from tests.deadlines import HANG
from tests.e2e.conftest import server_env

TOKEN = "the-editor-s-secret-token"
"""``PI_LSP_TOKEN``: the daemon serves only the client whose ``initialize`` carries it."""
TIMEOUT = HANG
"""Seconds before a step that never completes counts as a hang (a failure bound)."""


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick for a throwaway socket)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening_addresses(port: int) -> list[str]:
    """Local addresses of the TCP sockets listening on ``port``, from Linux's /proc/net tables
    (IPv4 as dotted quads, IPv6 as 32 hex digits in the kernel's byte order)."""
    found: list[str] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                if len(address) == 8:  # little-endian IPv4
                    address = socket.inet_ntoa(bytes.fromhex(address)[::-1])
                found.append(address)
    return found


async def connect(port: int, process: asyncio.subprocess.Process) -> Any:
    """The first successful connection (the daemon serves one client, so probing with throwaway
    connections would end it); fails if the daemon exits or never listens."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        try:
            return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), TIMEOUT)
        except OSError:
            assert process.returncode is None, f"the daemon exited with {process.returncode}"
            assert asyncio.get_running_loop().time() < deadline, "the daemon never listened"
            await asyncio.sleep(0.05)


async def send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    await asyncio.wait_for(writer.drain(), TIMEOUT)


async def receive(reader: asyncio.StreamReader) -> dict[str, Any]:
    """One message: ``Content-Length`` header(s), a blank line, then the JSON body."""
    length = None
    while (line := await asyncio.wait_for(reader.readline(), TIMEOUT)) != b"\r\n":
        assert line.endswith(b"\r\n"), f"header line cut short: {line!r}"
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    assert length is not None, "no Content-Length header"
    message: dict[str, Any] = json.loads(
        await asyncio.wait_for(reader.readexactly(length), TIMEOUT)
    )
    return message


async def answer(reader: asyncio.StreamReader, request_id: int) -> dict[str, Any]:
    """The response to ``request_id`` (notifications sent meanwhile are skipped)."""
    while "id" not in (message := await receive(reader)) or message["id"] != request_id:
        pass
    return message


def refused(host: str, port: int) -> bool:
    """Whether a connection to ``host:port`` fails (nothing listens there for that address)."""
    with socket.socket() as probe:
        probe.settimeout(TIMEOUT)
        try:
            probe.connect((host, port))
        except OSError:
            return True
        return False


async def test_tcp_serves_one_client_on_loopback_only(tmp_path: Path) -> None:
    """initialize → capabilities; the only listening socket is 127.0.0.1:PORT (127.0.0.2, also
    this machine's loopback, is refused: not bound to 0.0.0.0); shutdown/exit → code 0; nothing
    ever written to stdout."""
    port = free_port()
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:  # a file: an unread pipe could fill up and block the daemon
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "pi_lsp", "--tcp", str(port)),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**server_env(tmp_path / "agent"), "PI_LSP_TOKEN": TOKEN},
        )
    writer: asyncio.StreamWriter | None = None
    try:
        reader, writer = await connect(port, process)
        params = {
            "processId": None,
            "rootUri": tmp_path.as_uri(),
            "capabilities": {},
            "initializationOptions": {"authToken": TOKEN},
        }
        await send(writer, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        initialized = await answer(reader, 1)
        capabilities = initialized["result"]["capabilities"]
        assert capabilities["workspace"]["workspaceFolders"]["supported"] is True, initialized
        assert initialized["result"]["serverInfo"]["name"] == "pi-lsp", initialized
        await send(writer, {"jsonrpc": "2.0", "method": "initialized", "params": {}})

        assert listening_addresses(port) == ["127.0.0.1"]
        assert refused("127.0.0.2", port)

        await send(writer, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        assert (await answer(reader, 2)) == {"jsonrpc": "2.0", "id": 2, "result": None}
        await send(writer, {"jsonrpc": "2.0", "method": "exit", "params": None})
        stdout, _ = await asyncio.wait_for(process.communicate(), TIMEOUT)
        assert process.returncode == 0, log.read_text(errors="replace")
        assert stdout == b"", stdout[:500]
    finally:
        if writer is not None:
            writer.close()
        if process.returncode is None:
            process.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), TIMEOUT)

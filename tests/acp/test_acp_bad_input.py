"""Bad input to ``pi-lsp --acp`` over raw pipes: errors come back, the agent stays alive."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.acp.acp_schema import Checker
from tests.deadlines import HANG
from tests.e2e.conftest import server_env


class Raw:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.checker = Checker()

    async def send_line(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        self.checker("outgoing", message)
        await self.send_line(json.dumps(message).encode())

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), HANG)
        assert line, "the agent closed its output"
        message = json.loads(line)
        self.checker("incoming", message)
        return message  # type: ignore[no-any-return]


async def test_malformed_frames_unknown_methods_and_sessions(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "--acp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=server_env(tmp_path / "agent"),
        cwd=str(root),
    )
    raw = Raw(process)
    try:
        await raw.send(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        assert (await raw.read())["result"]["protocolVersion"] == 1
        await raw.send_line(b"{not json")
        answer = await raw.read()
        assert answer["id"] is None and answer["error"]["code"] == -32700
        await raw.send_line(b"[1, 2, 3]")
        answer = await raw.read()
        assert answer["id"] is None and answer["error"]["code"] == -32600
        await raw.send_line(b'{"jsonrpc": "2.0", "id": 7, "method": 42}')
        answer = await raw.read()
        assert answer["id"] == 7 and answer["error"]["code"] == -32600
        await raw.send({"jsonrpc": "2.0", "id": 2, "method": "session/teleport", "params": {}})
        answer = await raw.read()
        assert answer["id"] == 2 and answer["error"]["code"] == -32601
        await raw.send({"jsonrpc": "2.0", "id": 3, "method": "_pi/unknown", "params": {}})
        assert (await raw.read())["error"]["code"] == -32601
        prompt = {"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "hi"}]}
        await raw.send({"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": prompt})
        answer = await raw.read()
        assert answer["error"]["code"] == -32001 and "no-such-session" in answer["error"]["message"]
        load = {"sessionId": "nope", "cwd": str(root), "mcpServers": []}
        await raw.send({"jsonrpc": "2.0", "id": 5, "method": "session/load", "params": load})
        assert (await raw.read())["error"]["code"] == -32001
        await raw.send({"jsonrpc": "2.0", "id": 6, "method": "session/new", "params": {"cwd": 5}})
        assert (await raw.read())["error"]["code"] == -32602
        await raw.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "ghost"}}
        )
        # Still alive: a real request is answered.
        await raw.send(
            {"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {"cwd": str(root)}}
        )
        assert (await raw.read())["result"] == {"sessions": []}
        # Our own messages were bad on purpose; every answer must be valid ACP.
        assert [p for p in raw.checker.problems if p.startswith("incoming")] == []
    finally:
        assert process.stdin is not None
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), HANG) == 0

"""``pi-lsp --acp`` as a subprocess, driven by the ACP SDK's client side, with the scripted provider.

The client records every update, answers permission requests as a test says (or never), serves
``fs/read_text_file`` from its "unsaved buffers" before the disk and keeps ``fs/write_text_file``
in them. Every message in both directions is checked by :mod:`acp_schema`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest_asyncio
from acp import spawn_agent_process
from acp.connection import StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn
from tests.acp.acp_schema import Checker
from tests.e2e.conftest import server_env


@dataclass
class RecordingClient:
    """The editor side."""

    updates: list[tuple[str, Any]] = field(default_factory=list)
    permission_requests: list[Any] = field(default_factory=list)
    permission_answer: str | None = "allow_once"
    """Option id to pick; ``"cancelled"`` answers cancelled; None never answers."""
    buffers: dict[str, str] = field(default_factory=dict)
    """Unsaved editor text by path (what fs/read_text_file returns before the disk)."""
    writes: list[tuple[str, str]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        if self.permission_answer is None:
            await asyncio.Event().wait()  # never answers
        if self.permission_answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.permission_answer)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    terminals: dict[str, Any] = field(default_factory=dict)
    """Terminal id → the process the "editor" runs (real subprocesses)."""

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{len(self.terminals)}"
        self.terminals[terminal_id] = (process, asyncio.ensure_future(process.stdout.read()))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        process, _ = self.terminals[terminal_id]
        return WaitForTerminalExitResponse(exit_code=await process.wait())

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        process, output = self.terminals[terminal_id]
        if process.returncode is not None:
            text = (await output).decode()
            return TerminalOutputResponse(
                output=text,
                truncated=False,
                exit_status=TerminalExitStatus(exit_code=process.returncode),
            )
        return TerminalOutputResponse(output="", truncated=False)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse:
        process, _ = self.terminals[terminal_id]
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        return ReleaseTerminalResponse()

    def of(self, kind: str, session_id: str | None = None) -> list[Any]:
        return [
            u
            for sid, u in self.updates
            if u.session_update == kind and (session_id is None or sid == session_id)
        ]


@dataclass
class Agent:
    """A running ``pi-lsp --acp`` with its client connection."""

    conn: Any
    process: Any
    client: RecordingClient
    checker: Checker
    root: Path
    agent_dir: Path
    fake: FakeOpenAI

    async def init(self, *, fs: bool = True, terminal: bool = False) -> Any:
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal
        )
        return await self.conn.initialize(protocol_version=1, client_capabilities=caps)

    async def new(self) -> str:
        return (await self.conn.new_session(cwd=str(self.root), mcp_servers=[])).session_id


def one_call(name: str, arguments: dict[str, Any], then: str, call_id: str | None = None) -> Script:
    """A model that calls tool ``name`` once, then answers ``then`` after the result."""
    call = ScriptToolCall(name=name, arguments=arguments, id=call_id)
    return Script(turns=[Turn(tool_calls=[call]), Turn(text=then)])


def write_settings(agent_dir: Path, base_url: str, **extra: Any) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "apiBase": base_url,
        "defaultModel": "openai/fake-model",
        "models": {"openai/fake-model": {"contextWindow": 100_000}},
        "retry": {"baseDelayMs": 10, "maxRetries": 0},
        **extra,
    }
    (agent_dir / "settings.json").write_text(json.dumps(settings))


@pytest_asyncio.fixture
async def acp_agent(tmp_path: Path) -> AsyncIterator[Any]:
    """``await acp_agent(script, settings=...)`` → a started :class:`Agent` (fresh process)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return abs(a) + b\n")
    agent_dir = tmp_path / "agent"
    stacks: list[contextlib.AsyncExitStack] = []
    agents: list[Agent] = []

    async def start(
        script: Script | None = None,
        *,
        settings: dict[str, Any] | None = None,
        fake: FakeOpenAI | None = None,
    ) -> Agent:
        if fake is None:
            fake = FakeOpenAI(script or Script())
            fake.start()
        write_settings(agent_dir, fake.base_url, **(settings or {}))
        checker = Checker()
        client = RecordingClient()

        def observe(event: StreamEvent) -> None:
            checker(event.direction.value, event.message)

        stack = contextlib.AsyncExitStack()
        stderr = stack.enter_context((tmp_path / f"stderr-{len(stacks)}.log").open("wb"))
        conn, process = await stack.enter_async_context(
            spawn_agent_process(
                client,
                sys.executable,
                "-m",
                "pi_lsp",
                "--acp",
                env=server_env(agent_dir),
                cwd=str(root),
                transport_kwargs={"stderr": stderr, "limit": 64 * 1024 * 1024},
                use_unstable_protocol=True,
                observers=[observe],
            )
        )
        stacks.append(stack)
        agent = Agent(conn, process, client, checker, root, agent_dir, fake)
        agents.append(agent)
        return agent

    yield start
    for stack in reversed(stacks):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(stack.aclose(), 15)
    for agent in agents:
        agent.fake.stop()
    problems = [p for a in agents for p in a.checker.problems]
    assert problems == [], "\n".join(problems[:20])

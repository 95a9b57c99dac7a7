"""Shared fixtures: a workspace directory and the tools bound to it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import AnyTool, ShellSettings, ToolResult, create_tools


class Workspace:
    """A temporary project directory with the tools of a session started in it."""

    def __init__(self, root: Path, temp_dir: Path) -> None:
        self.root = root
        self.temp_dir = temp_dir
        shell = ShellSettings(agent_dir=str(root / ".agent"), temp_dir=str(temp_dir))
        self.tools = create_tools(str(root), shell=shell)

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_bytes(content.encode("utf-8"))
        else:
            path.write_bytes(content)
        return path

    def read(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    async def run(
        self,
        name: str,
        args: dict[str, Any],
        *,
        cancel: asyncio.Event | None = None,
        updates: list[ToolResult] | None = None,
    ) -> ToolResult:
        tool: AnyTool = self.tools[name]
        on_update = updates.append if updates is not None else None
        return await tool.execute(args, cancel=cancel, on_update=on_update)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    temp_dir = tmp_path / "tmp"
    temp_dir.mkdir()
    return Workspace(root, temp_dir)

"""pi's seven built-in tools as plain Python: read, bash, edit, write, grep, find, ls.

``create_tools(cwd)`` builds all of them for one session; four are active by default
(:data:`pi_lsp.literals.DEFAULT_ACTIVE_TOOLS`: grep, find and ls exist but are off unless
selected). No LSP, no model code.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pi_lsp.tools.base import Tool, ToolError, ToolResult
from pi_lsp.tools.bash import BashTool
from pi_lsp.tools.edit import EditTool
from pi_lsp.tools.files import LsTool, ReadTool, WriteTool
from pi_lsp.tools.fs import FileStat, FileSystem, LocalFileSystem
from pi_lsp.tools.search import FindTool, GrepTool
from pi_lsp.tools.shell import ShellSettings

AnyTool = Tool[Any]

TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")
"""Every built-in tool, in pi's order."""


def create_tools(
    cwd: str,
    *,
    fs: FileSystem | None = None,
    shell: ShellSettings | None = None,
) -> dict[str, AnyTool]:
    """All built-in tools for a session in ``cwd``, keyed by name, in ``TOOL_NAMES`` order.

    ``fs`` is the file access of read, write, edit and ls (the local disk by default).
    ``shell`` holds bash's settings; when it names no ``agent_dir``, pi's agent directory
    (``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``) is used, so ``<agentDir>/bin`` is on PATH.
    """
    files = fs if fs is not None else LocalFileSystem()
    shell = shell if shell is not None else ShellSettings()
    if shell.agent_dir is None:
        # Imported here: the session package is not needed by anything else in tools.
        from pi_lsp.session.paths import agent_dir

        shell = replace(shell, agent_dir=str(agent_dir()))
    tools: list[AnyTool] = [
        ReadTool(cwd, files),
        BashTool(cwd, shell),
        EditTool(cwd, files),
        WriteTool(cwd, files),
        GrepTool(cwd),
        FindTool(cwd),
        LsTool(cwd, files),
    ]
    return {tool.name: tool for tool in tools}


def close_tools(tools: dict[str, AnyTool]) -> None:
    """Release what a session's tools keep (bash's full-output files) when it closes."""
    bash = tools.get("bash")
    if isinstance(bash, BashTool):
        bash.close()


__all__ = [
    "TOOL_NAMES",
    "AnyTool",
    "BashTool",
    "EditTool",
    "FileStat",
    "FileSystem",
    "FindTool",
    "GrepTool",
    "LocalFileSystem",
    "LsTool",
    "ReadTool",
    "ShellSettings",
    "Tool",
    "ToolError",
    "ToolResult",
    "WriteTool",
    "close_tools",
    "create_tools",
]

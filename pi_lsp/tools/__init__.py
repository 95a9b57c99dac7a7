"""pi's seven built-in tools as plain Python: read, bash, edit, write, grep, find, ls.

``create_tools(cwd)`` builds all of them for one session; ``DEFAULT_ACTIVE`` names the four pi
enables by default (grep, find and ls exist but are off unless selected). No LSP, no model code.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pi_lsp.session.messages import ContentBlock, ImageContent, TextContent
from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback
from pi_lsp.tools.bash import BashTool
from pi_lsp.tools.edit import EditTool
from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.find import FindTool
from pi_lsp.tools.fs import FileStat, FileSystem, LocalFileSystem
from pi_lsp.tools.grep import GrepTool
from pi_lsp.tools.ls import LsTool
from pi_lsp.tools.read import ReadTool
from pi_lsp.tools.shell import ShellSettings
from pi_lsp.tools.write import WriteTool

AnyTool = Tool[Any]

TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")
"""Every built-in tool, in pi's order."""
DEFAULT_ACTIVE = ("read", "bash", "edit", "write")
"""The tools pi activates when none are selected."""


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


def active_tools(
    tools: dict[str, AnyTool], names: tuple[str, ...] = DEFAULT_ACTIVE
) -> list[AnyTool]:
    """The tools named in ``names`` (pi's default set unless given), in that order."""
    return [tools[name] for name in names if name in tools]


__all__ = [
    "DEFAULT_ACTIVE",
    "TOOL_NAMES",
    "AnyTool",
    "BashTool",
    "ContentBlock",
    "EditTool",
    "FileStat",
    "FileSystem",
    "FindTool",
    "GrepTool",
    "ImageContent",
    "LocalFileSystem",
    "LsTool",
    "ReadTool",
    "ShellSettings",
    "TextContent",
    "Tool",
    "ToolError",
    "ToolResult",
    "UpdateCallback",
    "WriteTool",
    "active_tools",
    "close_tools",
    "create_tools",
]

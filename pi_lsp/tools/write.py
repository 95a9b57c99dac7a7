"""The ``write`` tool: create or overwrite a file with the given content, parents created.

The success text counts the content the way pi does, in UTF-16 code units (JavaScript's
``String.length``), although it says "bytes": sessions written by either program then agree.
"""

from __future__ import annotations

import asyncio
import os

from pydantic import Field

from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback, raise_if_aborted
from pi_lsp.tools.errors import ToolError, file_error_message, node_error_message
from pi_lsp.tools.fs import FileSystem
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.truncate import js_len


class WriteParams(ToolParams):
    """Arguments of ``write``."""

    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class WriteTool(Tool[WriteParams]):
    """pi's ``write``."""

    name = "write"
    summary = "Create or overwrite files"
    params_model = WriteParams

    def __init__(self, cwd: str, fs: FileSystem) -> None:
        super().__init__(cwd)
        self.fs = fs

    @property
    def description(self) -> str:
        """pi's description of ``write``."""
        return (
            "Write content to a file. Creates the file if it doesn't exist, overwrites if it does."
            " Automatically creates parent directories."
        )

    async def run(
        self,
        params: WriteParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Create the parent directories, then write the file."""
        raise_if_aborted(cancel)
        absolute = resolve_to_cwd(params.path, self.cwd)
        parent = os.path.dirname(absolute)
        try:
            await self.fs.mkdir(parent)
        except OSError as exc:
            raise ToolError(node_error_message(exc, "mkdir", parent)) from None
        raise_if_aborted(cancel)
        try:
            await self.fs.write_text(absolute, params.content)
        except OSError as exc:
            raise ToolError(file_error_message(exc, "open", absolute, "write")) from None
        return ToolResult.of_text(
            f"Successfully wrote {js_len(params.content)} bytes to {params.path}"
        )

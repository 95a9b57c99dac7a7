"""The ``ls`` tool: one directory's entries, dotfiles included, sorted without regard to case.

Directories get a ``/`` suffix; entries that cannot be stat'ed (dangling links) are skipped. pi
sorts with ``localeCompare`` on lower-cased names; here lower-cased code-point order is used,
which agrees for ordinary ASCII names and can differ for punctuation and accents.
"""

from __future__ import annotations

import asyncio
import os

from pydantic import Field

from pi_lsp.tools.base import ToolResult, UpdateCallback, raise_if_aborted
from pi_lsp.tools.errors import ToolError, node_error_message
from pi_lsp.tools.file_tool import FileTool
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

DEFAULT_LIMIT = 500
MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: pi's "no line limit" for listings."""


class LsParams(ToolParams):
    """Arguments of ``ls``."""

    path: str | None = Field(
        default=None, description="Directory to list (default: current directory)"
    )
    limit: int | None = Field(
        default=None, description="Maximum number of entries to return (default: 500)"
    )


class LsTool(FileTool[LsParams]):
    """pi's ``ls``."""

    name = "ls"
    summary = "List directory contents"
    params_model = LsParams

    @property
    def description(self) -> str:
        """pi's description of ``ls``."""
        return (
            "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
            f"directories. Includes dotfiles. Output is truncated to {DEFAULT_LIMIT} entries or "
            f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
        )

    async def run(
        self,
        params: LsParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """List, sort, mark directories, apply the entry and byte limits."""
        raise_if_aborted(cancel)
        directory = resolve_to_cwd(params.path or ".", self.cwd)
        limit = params.limit if params.limit is not None else DEFAULT_LIMIT
        names = await self._names(directory)
        names.sort(key=str.lower)
        entries: list[str] = []
        limit_reached = False
        for name in names:
            if len(entries) >= limit:
                limit_reached = True
                break
            try:
                kind = (await self.fs.stat(os.path.join(directory, name))).kind
            except OSError:
                continue
            entries.append(name + "/" if kind == "directory" else name)
        raise_if_aborted(cancel)
        if not entries:
            return ToolResult.of_text("(empty directory)")
        return listing_result(entries, limit if limit_reached else None)

    async def _names(self, directory: str) -> list[str]:
        if not await self.fs.exists(directory):
            raise ToolError(f"Path not found: {directory}")
        try:
            kind = (await self.fs.stat(directory)).kind
        except OSError as exc:
            raise ToolError(node_error_message(exc, "stat", directory)) from None
        if kind != "directory":
            raise ToolError(f"Not a directory: {directory}")
        try:
            return await self.fs.list_dir(directory)
        except OSError as exc:
            message = node_error_message(exc, "scandir", directory)
            raise ToolError(f"Cannot read directory: {message}") from None


def listing_result(entries: list[str], limit_reached: int | None) -> ToolResult:
    """The listing with pi's byte cut and ``[... limit reached ...]`` notices."""
    truncation = truncate_head("\n".join(entries), max_lines=MAX_SAFE_INTEGER)
    details: dict[str, object] = {}
    notices: list[str] = []
    if limit_reached is not None:
        notices.append(
            f"{limit_reached} entries limit reached. Use limit={limit_reached * 2} for more"
        )
        details["entryLimitReached"] = limit_reached
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_details()
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return ToolResult.of_text(text, details or None)

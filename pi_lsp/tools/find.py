"""The ``find`` tool: files and directories whose name (or path) matches a glob.

pi runs fd (``--glob --hidden``, every ``.gitignore`` as an ignore file); fd is not required
here: the walk is ``walk`` and the glob is compiled by ``globs``. A pattern without ``/`` is
matched against entry names, as fd does; one with ``/`` against the path relative to the search
directory (fd would match it against the name only and find nothing, though pi's own
description suggests ``src/**/*.spec.ts``). Results are relative, ``/``-separated, directories
with a trailing ``/``, at most ``limit`` of them, the text cut at 50 KB. Reads the disk directly.
"""

from __future__ import annotations

import asyncio
import os
import threading

from pydantic import Field

from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback, raise_if_aborted, run_in_thread
from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.globs import compile_glob
from pi_lsp.tools.ls import MAX_SAFE_INTEGER
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head
from pi_lsp.tools.walk import walk

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    """Arguments of ``find``."""

    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
    )
    path: str | None = Field(
        default=None, description="Directory to search in (default: current directory)"
    )
    limit: int | None = Field(default=None, description="Maximum number of results (default: 1000)")


class FindTool(Tool[FindParams]):
    """pi's ``find``."""

    name = "find"
    summary = "Find files by glob pattern (respects .gitignore)"
    params_model = FindParams

    @property
    def description(self) -> str:
        """pi's description of ``find``."""
        return (
            "Search for files by glob pattern. Returns matching file paths relative to the search "
            f"directory. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} results or "
            f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
        )

    async def run(
        self,
        params: FindParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Walk, match, format with pi's notices."""
        raise_if_aborted(cancel)
        root = resolve_to_cwd(params.path or ".", self.cwd)
        if not os.path.exists(root):
            raise ToolError(f"Path not found: {root}")
        if not os.path.isdir(root):
            raise ToolError(f"[fd error]: Search path '{root}' is not a directory.")
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        glob = compile_glob(params.pattern)

        def work(stop: threading.Event) -> list[str]:
            found: list[str] = []
            for entry in walk(root, stop):
                if glob.matches(entry.rel, entry.name):
                    found.append(entry.rel + "/" if entry.is_dir else entry.rel)
                    if len(found) >= limit:
                        break
            return found

        found = await run_in_thread(work, cancel)
        if not found:
            return ToolResult.of_text("No files found matching pattern")
        return _result(found, limit if len(found) >= limit else None)


def _result(found: list[str], limit_reached: int | None) -> ToolResult:
    truncation = truncate_head("\n".join(found), max_lines=MAX_SAFE_INTEGER)
    details: dict[str, object] = {}
    notices: list[str] = []
    if limit_reached is not None:
        notices.append(
            f"{limit_reached} results limit reached. Use limit={limit_reached * 2} for more, "
            "or refine pattern"
        )
        details["resultLimitReached"] = limit_reached
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_details()
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return ToolResult.of_text(text, details or None)

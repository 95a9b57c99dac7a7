"""The ``grep`` tool: search file contents, with pi's output format, limits and notices.

pi runs ripgrep (``--json --hidden``); ripgrep is not required here (see ``grep_search``). Output
lines are ``path:N: text`` for a match and ``path-N- text`` for a context line, paths relative to
the searched directory (the file's name when a single file is searched). Each match gets its own
block of context, as in pi, so overlapping context repeats lines. Lines are cut at 500
characters, the whole output at 50 KB, the search stops at ``limit`` matches.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

from pydantic import Field

from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback, raise_if_aborted, run_in_thread
from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.grep_search import Match, compile_query, search
from pi_lsp.tools.ls import MAX_SAFE_INTEGER
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
)

DEFAULT_LIMIT = 100


class GrepParams(ToolParams):
    """Arguments of ``grep``."""

    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | None = Field(
        default=None,
        description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'",
    )
    ignoreCase: bool | None = Field(
        default=None, description="Case-insensitive search (default: false)"
    )
    literal: bool | None = Field(
        default=None,
        description="Treat pattern as literal string instead of regex (default: false)",
    )
    context: int | None = Field(
        default=None,
        description="Number of lines to show before and after each match (default: 0)",
    )
    limit: int | None = Field(
        default=None, description="Maximum number of matches to return (default: 100)"
    )


class GrepTool(Tool[GrepParams]):
    """pi's ``grep``; walks and reads the disk directly (not through ``FileSystem``)."""

    name = "grep"
    summary = "Search file contents for patterns (respects .gitignore)"
    params_model = GrepParams
    skip_file: Callable[[str], bool] | None = None
    """Files a directory search must not read (the permission gate's secret files)."""

    @property
    def description(self) -> str:
        """pi's description of ``grep``."""
        return (
            "Search file contents for a pattern. Returns matching lines with file paths and line "
            f"numbers. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} matches or "
            f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Long lines are truncated to "
            f"{GREP_MAX_LINE_LENGTH} chars."
        )

    async def run(
        self,
        params: GrepParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Search, then format the matches with pi's notices."""
        raise_if_aborted(cancel)
        root = resolve_to_cwd(params.path or ".", self.cwd)
        if not os.path.exists(root):
            raise ToolError(f"Path not found: {root}")
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        query = compile_query(
            params.pattern,
            ignore_case=bool(params.ignoreCase),
            literal=bool(params.literal),
            glob=params.glob,
            limit=limit,
        )

        skipped: list[str] = []

        def work(stop: threading.Event) -> tuple[list[Match], bool]:
            return search(root, query, stop, self.skip_file, skipped)

        matches, limit_reached = await run_in_thread(work, cancel)
        if not matches:
            return _with_skipped(ToolResult.of_text("No matches found"), skipped)
        context = params.context if params.context and params.context > 0 else 0
        is_dir = os.path.isdir(root)
        lines, cut = format_matches(
            matches, context, lambda path: _display_path(path, root, is_dir)
        )
        result = _result(lines, limit if limit_reached else None, lines_truncated=cut)
        return _with_skipped(result, skipped)


def _with_skipped(result: ToolResult, skipped: list[str]) -> ToolResult:
    """The result plus a note on the secret files that were not searched."""
    if not skipped:
        return result
    note = (
        f"[{len(skipped)} secret file(s) not searched (permissions.secretPaths), e.g. "
        f"{skipped[0]}; reading one asks the user first]"
    )
    return ToolResult.of_text(f"{result.text}\n\n{note}", result.details)


def _display_path(path: str, root: str, is_dir: bool) -> str:
    if is_dir:
        relative = os.path.relpath(path, root)
        if relative and not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return os.path.basename(path)


def format_matches(
    matches: list[Match], context: int, display: Callable[[str], str]
) -> tuple[list[str], bool]:
    """pi's blocks: each match with ``context`` lines around it; True when a line was cut."""
    output: list[str] = []
    any_cut = False
    for match in matches:
        name = display(match.path)
        first = max(1, match.line - context) if context else match.line
        last = min(len(match.lines), match.line + context) if context else match.line
        for number in range(first, last + 1):
            text, cut = truncate_line(match.lines[number - 1] if number <= len(match.lines) else "")
            any_cut = any_cut or cut
            separator = ":" if number == match.line else "-"
            output.append(f"{name}{separator}{number}{separator} {text}")
    return output, any_cut


def _result(lines: list[str], limit_reached: int | None, *, lines_truncated: bool) -> ToolResult:
    truncation = truncate_head("\n".join(lines), max_lines=MAX_SAFE_INTEGER)
    details: dict[str, object] = {}
    notices: list[str] = []
    if limit_reached is not None:
        notices.append(
            f"{limit_reached} matches limit reached. Use limit={limit_reached * 2} for more, "
            "or refine pattern"
        )
        details["matchLimitReached"] = limit_reached
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_details()
    if lines_truncated:
        notices.append(
            f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        )
        details["linesTruncated"] = True
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return ToolResult.of_text(text, details or None)

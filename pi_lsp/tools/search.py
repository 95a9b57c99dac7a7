"""The search tools: ``find`` (files by glob) and ``grep`` (file contents), with pi's notices.

Both read the disk directly (not through ``FileSystem``) in a worker thread, over the
``.gitignore``-aware walk of ``walk``. Results are relative, ``/``-separated paths, at most
``limit`` of them, the text cut at 50 KB.

pi's ``find`` runs fd (``--glob --hidden``, every ``.gitignore`` as an ignore file); fd is not
required here. A pattern without ``/`` is matched against entry names, as fd does; one with
``/`` against the path relative to the search directory (fd would match it against the name
only and find nothing, though pi's own description suggests ``src/**/*.spec.ts``). Directories
get a trailing ``/``.

pi's ``grep`` runs ripgrep (``--json --hidden``); ripgrep is not required here either. Output
lines are ``path:N: text`` for a match and ``path-N- text`` for a context line, paths relative
to the searched directory (the file's name when a single file is searched). Each match gets its
own block of context, as in pi, so overlapping context repeats lines. Lines are cut at 500
characters, the search stops at ``limit`` matches. Files come from the walk (symbolic links
skipped, as rg does without ``--follow``), filtered by the ``glob`` argument; files holding a
NUL byte are binary and skipped. Lines are split after CRLF/CR become LF and matched one by one
with Python's ``re`` (rg uses Rust's regex syntax, which agrees for the common subset). A file
is first searched as a whole so files without a match cost one regex scan.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pydantic import Field

from pi_lsp.safety import read_regular
from pi_lsp.tools.base import Tool, ToolError, ToolInvocation, ToolParams, ToolResult
from pi_lsp.tools.fs import MAX_READ_BYTES
from pi_lsp.tools.truncate import (
    GREP_MAX_LINE_LENGTH,
    Note,
    limit_note,
    limits_text,
    listing_result,
    truncate_line,
)
from pi_lsp.tools.walk import Entry, Glob, compile_glob, walk

FIND_LIMIT = 1000
GREP_LIMIT = 100


def search_root(tool: Tool[FindParams] | Tool[GrepParams], path: str | None) -> str:
    """The directory (or file) a search starts from; ``Path not found`` when it is missing."""
    root = tool.resolve(path or ".")
    if not os.path.exists(root):
        raise ToolError(f"Path not found: {root}")
    return root


def result_limit(limit: int | None, default: int) -> int:
    """The ``limit`` argument, at least 1 (pi's default when not given)."""
    return max(1, limit if limit is not None else default)


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
    description = (
        "Search for files by glob pattern. Returns matching file paths relative to the search "
        "directory. Respects .gitignore. Output is truncated to "
        f"{limits_text(f'{FIND_LIMIT} results')}."
    )
    params_model = FindParams

    async def run(self, params: FindParams, call: ToolInvocation) -> ToolResult:
        """Walk, match, format with pi's notices."""
        call.check()
        root = search_root(self, params.path)
        if not os.path.isdir(root):
            raise ToolError(f"[fd error]: Search path '{root}' is not a directory.")
        limit = result_limit(params.limit, FIND_LIMIT)
        glob = compile_glob(params.pattern)

        def work(stop: threading.Event) -> list[str]:
            found: list[str] = []
            for entry in walk(root, stop):
                if glob.matches(entry.rel, entry.name):
                    found.append(entry.rel + "/" if entry.is_dir else entry.rel)
                    if len(found) >= limit:
                        break
            return found

        found = await call.in_thread(work)
        if not found:
            return ToolResult.of_text("No files found matching pattern")
        notes = [limit_note(limit, "results", "resultLimitReached")] if len(found) >= limit else []
        return listing_result(found, notes, [])


class GrepParams(ToolParams):
    """Arguments of ``grep``."""

    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | None = Field(
        default=None, description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"
    )
    ignoreCase: bool | None = Field(
        default=None, description="Case-insensitive search (default: false)"
    )
    literal: bool | None = Field(
        default=None,
        description="Treat pattern as literal string instead of regex (default: false)",
    )
    context: int | None = Field(
        default=None, description="Number of lines to show before and after each match (default: 0)"
    )
    limit: int | None = Field(
        default=None, description="Maximum number of matches to return (default: 100)"
    )


class GrepTool(Tool[GrepParams]):
    """pi's ``grep``."""

    name = "grep"
    summary = "Search file contents for patterns (respects .gitignore)"
    description = (
        "Search file contents for a pattern. Returns matching lines with file paths and line "
        "numbers. Respects .gitignore. Output is truncated to "
        f"{limits_text(f'{GREP_LIMIT} matches')}. Long lines are truncated to "
        f"{GREP_MAX_LINE_LENGTH} chars."
    )
    params_model = GrepParams
    skip_file: Callable[[str], bool] | None = None
    """Files a directory search must not read (the permission gate's secret files)."""

    async def run(self, params: GrepParams, call: ToolInvocation) -> ToolResult:
        """Search, then format the matches with pi's notices."""
        call.check()
        root = search_root(self, params.path)
        limit = result_limit(params.limit, GREP_LIMIT)
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

        matches, limit_reached = await call.in_thread(work)
        if not matches:
            return _with_skipped(ToolResult.of_text("No matches found"), skipped)
        context = params.context if params.context and params.context > 0 else 0
        is_dir = os.path.isdir(root)
        lines, cut = format_matches(
            matches, context, lambda path: _display_path(path, root, is_dir)
        )
        before = [limit_note(limit, "matches", "matchLimitReached")] if limit_reached else []
        after: list[Note] = []
        if cut:
            note = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see"
            after.append((f"{note} full lines", "linesTruncated", True))
        return _with_skipped(listing_result(lines, before, after), skipped)


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


# Constructs that can match a line on its own but not inside the whole file text.
_NOT_PREFILTERABLE = ("(?<", "(?=", "(?!", "\\A", "\\Z", "\\z", "\\n")


@dataclass(frozen=True, slots=True)
class Query:
    """What to look for and where."""

    line_pattern: re.Pattern[str]
    file_pattern: re.Pattern[str] | None
    """Searched over a whole file first; None when that could miss a line match."""
    glob: Glob | None
    limit: int


@dataclass(frozen=True, slots=True)
class Match:
    """A matching line: the file, its 1-based number, and the file's lines for context."""

    path: str
    line: int
    lines: list[str]


def compile_query(
    pattern: str, *, ignore_case: bool, literal: bool, glob: str | None, limit: int
) -> Query:
    """Compile the pattern like rg's flags would; an invalid regex raises ``ToolError``."""
    source = re.escape(pattern) if literal else pattern
    flags = re.IGNORECASE if ignore_case else 0
    try:
        line_pattern = re.compile(source, flags)
        prefilter = literal or not any(token in pattern for token in _NOT_PREFILTERABLE)
        file_pattern = re.compile(source, flags | re.MULTILINE) if prefilter else None
    except re.error as exc:
        raise ToolError(f"regex parse error:\n    {pattern}\nerror: {exc.msg}") from None
    return Query(line_pattern, file_pattern, compile_glob(glob) if glob else None, limit)


def file_text(path: str) -> str | None:
    """The file as text with CRLF/CR made LF, or None when unreadable or binary."""
    try:
        data = read_regular(path, MAX_READ_BYTES)
    except OSError:  # also FIFOs, devices and files over the limit: skipped, never a hang
        return None
    if b"\0" in data:
        return None
    text = data.decode("utf-8", "replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def search(
    root: str,
    query: Query,
    stop: threading.Event,
    skip: Callable[[str], bool] | None = None,
    skipped: list[str] | None = None,
) -> tuple[list[Match], bool]:
    """Matches in ``root`` (a directory or one file) up to the limit; True when it was hit.

    Files of a directory walk for which ``skip`` is true (secret files the user was not asked
    about) are not read; their paths go to ``skipped``.
    """
    matches: list[Match] = []
    for path in _candidates(root, query.glob, stop):
        if stop.is_set():
            break
        if skip is not None and path != root and skip(path):
            if skipped is not None:
                skipped.append(path)
            continue
        if _search_file(path, query, matches):
            return matches, True
    return matches, False


def _candidates(root: str, glob: Glob | None, stop: threading.Event) -> Iterable[str]:
    """The files to search: ``root`` itself when it is a file (never filtered, as in rg)."""
    if not os.path.isdir(root):
        return [root]
    excluded = glob if glob is not None and glob.negated else None

    def prune(entry: Entry) -> bool:
        return excluded is not None and excluded.matches(entry.rel, entry.name)

    return (
        entry.path
        for entry in walk(root, stop, prune=prune)
        if not entry.is_dir
        and not entry.is_symlink
        and (glob is None or glob.negated or glob.matches(entry.rel, entry.name))
    )


def _search_file(path: str, query: Query, matches: list[Match]) -> bool:
    """Append the file's matching lines; True once the limit is reached."""
    text = file_text(path)
    if text is None:
        return False
    if query.file_pattern is not None and query.file_pattern.search(text) is None:
        return False
    lines = text.split("\n")
    searched = lines[:-1] if lines[-1] == "" else lines
    for number, line in enumerate(searched, start=1):
        if query.line_pattern.search(line) is not None:
            matches.append(Match(path, number, lines))
            if len(matches) >= query.limit:
                return True
    return False

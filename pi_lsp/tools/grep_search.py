"""The search behind ``grep``: ripgrep's file selection and line matching, in Python.

Files come from the ``.gitignore``-aware walk (symbolic links skipped, as rg does without
``--follow``), filtered by the ``glob`` argument; files holding a NUL byte are binary and skipped.
Lines are split after CRLF/CR become LF and matched one by one with Python's ``re`` (rg uses
Rust's regex syntax, which agrees for the common subset). A file is first searched as a whole
so files without a match cost one regex scan. Blocking; run in a worker thread.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pi_lsp.regular_files import read_regular
from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.fs import MAX_READ_BYTES
from pi_lsp.tools.globs import Glob, compile_glob
from pi_lsp.tools.walk import Entry, walk

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

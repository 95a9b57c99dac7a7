"""pi's output truncation: head/tail cuts, the grep line cut, sizes, listings with their notices.

Two independent limits apply, whichever is hit first: ``DEFAULT_MAX_LINES`` lines and
``DEFAULT_MAX_BYTES`` UTF-8 bytes. Head truncation never returns a partial line; tail truncation
returns a partial line only when the last line alone is over the byte limit. The result carries
pi's ``TruncationResult`` fields (camelCase in ``to_details``) because they are stored in tool
result ``details`` and read back by pi. Pure; JavaScript string semantics where pi relies on them
(UTF-16 lengths, ``toFixed``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pi_lsp.session.jsonl import js_len
from pi_lsp.tools.base import ToolResult

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TruncationResult:
    """What a cut kept and what it dropped (pi's ``TruncationResult``)."""

    content: str
    """The text that was kept."""
    truncated: bool
    truncated_by: TruncatedBy | None
    """Which limit was hit; None when nothing was cut."""
    total_lines: int
    total_bytes: int
    output_lines: int
    """Complete lines kept (a partial last line counts as one)."""
    output_bytes: int
    last_line_partial: bool
    """Tail cut only: the kept text is the end of one over-long line."""
    first_line_exceeds_limit: bool
    """Head cut only: the first line alone is over the byte limit, so nothing was kept."""
    max_lines: int
    max_bytes: int

    def to_details(self) -> dict[str, Any]:
        """The object pi stores under ``details.truncation``."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def limits_text(count: str) -> str:
    """pi's ``<count> or 50KB (whichever is hit first)``, as the tool descriptions say it."""
    return f"{count} or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)"


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (``Buffer.byteLength``); lone surrogates count as U+FFFD."""
    return len(text.encode("utf-8", "replace"))


def format_size(size: int) -> str:
    """``NB``, ``N.NKB`` or ``N.NMB`` with JavaScript's ``toFixed(1)`` rounding (half up)."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_to_fixed_1(size / 1024)}KB"
    return f"{_to_fixed_1(size / (1024 * 1024))}MB"


def _to_fixed_1(value: float) -> str:
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def split_lines_for_counting(content: str) -> list[str]:
    """Lines as pi counts them: none for empty text, a trailing newline ends the last line."""
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def _result(content: str, lines: int, **fields: Any) -> TruncationResult:
    defaults: dict[str, Any] = {
        "truncated": True,
        "last_line_partial": False,
        "first_line_exceeds_limit": False,
    }
    defaults.update(fields)
    return TruncationResult(
        content=content, output_lines=lines, output_bytes=utf8_len(content), **defaults
    )


def _measure(
    content: str, max_lines: int, max_bytes: int
) -> tuple[list[str], dict[str, Any], TruncationResult | None]:
    """The lines as counted, the totals and limits, and the result when nothing is cut."""
    total_bytes = utf8_len(content)
    lines = split_lines_for_counting(content)
    common = {
        "total_lines": len(lines),
        "total_bytes": total_bytes,
        "max_lines": max_lines,
        "max_bytes": max_bytes,
    }
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return (
            lines,
            common,
            _result(content, len(lines), truncated=False, truncated_by=None, **common),
        )
    return lines, common, None


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first lines that fit both limits (file reads: the beginning matters).

    Never a partial line: when the first line alone is over the byte limit nothing is kept.
    """
    lines, common, whole = _measure(content, max_lines, max_bytes)
    if whole is not None:
        return whole
    if utf8_len(lines[0]) > max_bytes:
        return _result("", 0, truncated_by="bytes", first_line_exceeds_limit=True, **common)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines[:max_lines]):
        size = utf8_len(line) + (1 if index > 0 else 0)
        if used + size > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    return _result("\n".join(kept), len(kept), truncated_by=truncated_by, **common)


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the last lines that fit both limits (command output: the end matters)."""
    lines, common, whole = _measure(content, max_lines, max_bytes)
    if whole is not None:
        return whole
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        size = utf8_len(line) + (1 if kept else 0)
        if used + size > max_bytes:
            truncated_by = "bytes"
            if not kept:
                tail = _tail_bytes(line, max_bytes)
                kept.append(tail)
                used = utf8_len(tail)
                partial = True
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    kept.reverse()
    return _result(
        "\n".join(kept), len(kept), truncated_by=truncated_by, last_line_partial=partial, **common
    )


def _tail_bytes(text: str, max_bytes: int) -> str:
    """The end of ``text`` in at most ``max_bytes`` UTF-8 bytes, cut at a character start."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:].decode("utf-8")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` UTF-16 units plus ``... [truncated]`` (grep match lines)."""
    if js_len(line) <= max_chars:
        return line, False
    return f"{_js_prefix(line, max_chars)}... [truncated]", True


def _js_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` within ``units`` UTF-16 code units."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            return text[:index]
    return text


MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: pi's "no line limit" for listings."""

Note = tuple[str, str, object]
"""One bracketed notice of a listing: its text, and the ``details`` key and value it sets."""


def limit_note(count: int, what: str, key: str, hint: str = ", or refine pattern") -> Note:
    """pi's ``N <what> limit reached. Use limit=2N for more`` notice and its detail."""
    return (f"{count} {what} limit reached. Use limit={count * 2} for more{hint}", key, count)


def listing_result(lines: list[str], before: list[Note], after: list[Note]) -> ToolResult:
    """ls, find and grep output: the lines cut at 50 KB, then pi's ``[a. b]`` notices.

    The byte cut's notice comes between ``before`` and ``after``; ``details`` holds each
    notice's key in that order (None when there is none).
    """
    truncation = truncate_head("\n".join(lines), max_lines=MAX_SAFE_INTEGER)
    notes = list(before)
    if truncation.truncated:
        cut = f"{format_size(DEFAULT_MAX_BYTES)} limit reached"
        notes.append((cut, "truncation", truncation.to_details()))
    notes.extend(after)
    text = truncation.content
    if notes:
        text += f"\n\n[{'. '.join(note for note, _, _ in notes)}]"
    return ToolResult.of_text(text, {key: value for _, key, value in notes} or None)

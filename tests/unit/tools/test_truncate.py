from __future__ import annotations

import pytest

from pi_lsp.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    js_len,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_limits_are_pis() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH) == (2000, 51200, 500)


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (51200, "50.0KB"),
        (1536, "1.5KB"),
        (1126, "1.1KB"),
        (1024 * 1024 - 1, "1024.0KB"),
        (1024 * 1024, "1.0MB"),
        (int(2.25 * 1024 * 1024), "2.3MB"),  # toFixed rounds the tie up; Python would give 2.2
        (int(0.25 * 1024 * 1024) + 1024 * 1024, "1.3MB"),
    ],
)
def test_format_size(size: int, text: str) -> None:
    assert format_size(size) == text


def test_js_helpers() -> None:
    assert js_len("a😀") == 3


def test_head_untouched_content_is_returned_as_is() -> None:
    result = truncate_head("a\nb\n")
    assert result.to_details() == {
        "content": "a\nb\n",
        "truncated": False,
        "truncatedBy": None,
        "totalLines": 2,
        "totalBytes": 4,
        "outputLines": 2,
        "outputBytes": 4,
        "lastLinePartial": False,
        "firstLineExceedsLimit": False,
        "maxLines": 2000,
        "maxBytes": 51200,
    }


def test_head_cuts_at_the_line_limit() -> None:
    text = "\n".join(str(i) for i in range(1, 2501))
    result = truncate_head(text)
    assert result.truncated and result.truncated_by == "lines"
    assert result.content.split("\n")[-1] == "2000"
    assert (result.total_lines, result.output_lines) == (2500, 2000)


def test_head_cuts_at_the_byte_limit_without_partial_lines() -> None:
    line = "x" * 99
    text = "\n".join([line] * 1000)  # 100 bytes per line with its newline
    result = truncate_head(text)
    assert result.truncated_by == "bytes"
    assert result.output_lines == 512
    assert result.output_bytes == 512 * 100 - 1
    assert result.content == "\n".join([line] * 512)


def test_head_first_line_over_the_limit_keeps_nothing() -> None:
    result = truncate_head("y" * (DEFAULT_MAX_BYTES + 1) + "\nshort")
    assert result.content == ""
    assert result.first_line_exceeds_limit
    assert (result.truncated_by, result.output_lines, result.output_bytes) == ("bytes", 0, 0)


def test_tail_keeps_the_end() -> None:
    text = "\n".join(str(i) for i in range(1, 3001)) + "\n"
    result = truncate_tail(text)
    assert result.truncated_by == "lines"
    assert result.content.split("\n")[0] == "1001"
    assert result.content.endswith("3000")
    assert result.total_lines == 3000


def test_tail_cuts_an_oversized_last_line_at_a_character_start() -> None:
    line = "é" * 30000  # 60000 bytes
    result = truncate_tail("first\n" + line)
    assert result.last_line_partial
    assert result.truncated_by == "bytes"
    assert result.output_lines == 1
    assert result.content == "é" * 25600
    assert result.output_bytes == DEFAULT_MAX_BYTES


def test_tail_byte_limit() -> None:
    text = "\n".join(["z" * 99] * 1000)
    result = truncate_tail(text)
    assert result.truncated_by == "bytes"
    assert result.output_lines == 512
    assert not result.last_line_partial


def test_truncate_line_counts_utf16_units() -> None:
    assert truncate_line("a" * 500) == ("a" * 500, False)
    assert truncate_line("a" * 501) == ("a" * 500 + "... [truncated]", True)
    text, cut = truncate_line("😀" * 300)
    assert cut
    assert text == "😀" * 250 + "... [truncated]"

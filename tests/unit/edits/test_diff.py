"""Minimal text edits: exact round trips in every encoding, and small edits for small changes."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.edits.diff import (
    ENCODINGS,
    Edit,
    PositionIndex,
    apply_edits,
    split_lines,
    text_edits,
    units,
)

# Line breaks of every style, astral characters (2 UTF-16 units, 4 UTF-8 bytes), a BMP
# character of 3 UTF-8 bytes, and characters str.splitlines would split at but LSP does not.
PIECES = ["a", "b", "word ", "\n", "\r\n", "\r", "😀", "é", "中", "\x0c", "\u2028", " "]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@st.composite
def similar(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a variant of it: a few pieces inserted, deleted or replaced."""
    text = draw(texts)
    chars = list(text)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(chars)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(PIECES))
        if action == "insert" or not chars or at == len(chars):
            chars.insert(at, piece)
        elif action == "delete":
            del chars[at]
        else:
            chars[at] = piece
    return text, "".join(chars)


@settings(max_examples=800, deadline=None)
@given(st.one_of(st.tuples(texts, texts), similar()))
def test_edits_turn_old_into_new_in_every_encoding(pair: tuple[str, str]) -> None:
    # Unrelated texts, and similar ones (the edits an editor sees most).
    old, new = pair
    for encoding in ENCODINGS:
        assert apply_edits(old, text_edits(old, new, encoding), encoding) == new


@settings(max_examples=300, deadline=None)
@given(similar())
def test_edits_are_ordered_disjoint_and_never_split_a_crlf(pair: tuple[str, str]) -> None:
    old, new = pair
    index = PositionIndex(old, "utf-16")
    offsets = []
    for edit in text_edits(old, new):
        start = index.offset(edit.start_line, edit.start_char)
        end = index.offset(edit.end_line, edit.end_char)
        assert index.position(start) == (edit.start_line, edit.start_char)
        assert index.position(end) == (edit.end_line, edit.end_char)
        for offset in (start, end):
            assert old[offset - 1 : offset + 1] != "\r\n"
        offsets.append((start, end))
    assert all(a[1] < b[0] for a, b in pairwise(offsets))


def test_equal_texts_need_no_edit() -> None:
    assert text_edits("same\r\ntext😀", "same\r\ntext😀") == []


def test_one_word_change_is_one_word_edit() -> None:
    old = "def f():\n    return total + 1\n\nprint(f())\n"
    new = "def f():\n    return count + 1\n\nprint(f())\n"
    assert text_edits(old, new) == [Edit(1, 11, 1, 16, "count")]


def test_two_distant_changes_are_two_small_edits() -> None:
    old = "".join(f"line {n}\n" for n in range(100))
    new = old.replace("line 3\n", "line three\n").replace("line 90\n", "")
    assert text_edits(old, new) == [Edit(3, 5, 3, 6, "three"), Edit(90, 0, 91, 0, "")]


def test_append_without_trailing_newline() -> None:
    assert text_edits("a\nb", "a\nb\nc") == [Edit(1, 1, 1, 1, "\nc")]


def test_from_and_to_empty_text() -> None:
    assert text_edits("", "x\r\ny") == [Edit(0, 0, 0, 0, "x\r\ny")]
    assert text_edits("x\r\ny", "") == [Edit(0, 0, 1, 1, "")]


def test_line_break_styles_are_lines_of_their_own() -> None:
    old = "one\r\ntwo\rthree\nfour"
    assert split_lines(old) == ["one\r\n", "two\r", "three\n", "four"]
    assert text_edits(old, old.replace("four", "4")) == [Edit(3, 0, 3, 4, "4")]
    assert text_edits(old, old.replace("two", "2")) == [Edit(1, 0, 1, 3, "2")]


def test_changing_a_crlf_to_lf_never_points_between_cr_and_lf() -> None:
    assert text_edits("a\r\nb", "a\nb") == [Edit(0, 1, 1, 0, "\n")]
    assert text_edits("a\r\n", "a\r") == [Edit(0, 1, 1, 0, "\r")]


def test_form_feed_and_line_separator_are_not_line_breaks() -> None:
    old = "a\x0cb\u2028c\nd"
    assert text_edits(old, old.replace("d", "D")) == [Edit(1, 0, 1, 1, "D")]


@pytest.mark.parametrize(
    ("encoding", "start", "end"),
    [("utf-16", 6, 8), ("utf-8", 8, 12), ("utf-32", 5, 6)],
)
def test_positions_after_an_emoji_count_in_the_encoding(
    encoding: str, start: int, end: int
) -> None:
    old = "x = 😀😀 + a\n"
    new = "x = 😀 + a\n"
    assert text_edits(old, new, encoding) == [Edit(0, start, 0, end, "")]  # type: ignore[arg-type]
    changed = "x = 😀😀 + b\n"
    (edit,) = text_edits(old, changed, encoding)  # type: ignore[arg-type]
    assert edit.new_text == "b"
    assert edit.start_char == units("x = 😀😀 + ", encoding)  # type: ignore[arg-type]


def test_apply_edits_accepts_any_order_and_rejects_overlaps() -> None:
    edits = [Edit(1, 0, 1, 1, "B"), Edit(0, 0, 0, 1, "A")]
    assert apply_edits("a\nb\n", edits) == "A\nB\n"
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits("abc", [Edit(0, 0, 0, 2, "x"), Edit(0, 1, 0, 3, "y")])


def test_apply_edits_clamps_positions_past_the_end_as_lsp_says() -> None:
    assert apply_edits("ab\ncd", [Edit(0, 99, 0, 99, "!")]) == "ab!\ncd"
    assert apply_edits("ab\ncd", [Edit(7, 0, 7, 0, "!")]) == "ab\ncd!"


def test_inserts_at_one_position_keep_their_order() -> None:
    edits = [Edit(0, 1, 0, 1, "x"), Edit(0, 1, 0, 1, "y")]
    assert apply_edits("ab", edits) == "axyb"


def test_a_large_rewrite_stays_exact() -> None:
    old = "".join(f"row {n % 7} 😀\r\n" for n in range(3000))
    new = "".join(f"row {n % 5} é\n" for n in range(2500))
    assert apply_edits(old, text_edits(old, new)) == new

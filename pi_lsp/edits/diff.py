r"""Minimal LSP text edits between two versions of a document, and applying them.

An editor keeps the cursor, marks, folds and undo history of everything an edit does not touch,
so a change goes out as the changed hunks only, never as one whole-buffer replacement (conform's
discipline). ``text_edits`` diffs the lines with difflib, then trims the common prefix and suffix
of every changed block, so a one-word change is a one-word edit. Offsets never fall between the
``\r`` and ``\n`` of a line break, where no LSP position exists.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate

from pi_lsp.edits.positions import PositionEncoding, PositionIndex, split_lines

_AUTOJUNK_ABOVE = 4_000_000
"""Line-pair count above which difflib may treat frequent lines as junk (speed over minimality)."""


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the range from (start_line, start_char) to (end_line, end_char) with ``new_text``.

    Coordinates are LSP positions in the encoding the edits were made for; ranges refer to the
    text before any of the edits of the same set is applied (LSP ``TextEdit`` semantics).
    """

    start_line: int
    start_char: int
    end_line: int
    end_char: int
    new_text: str


def text_edits(old: str, new: str, encoding: PositionEncoding = "utf-16") -> list[Edit]:
    """Non-overlapping edits, in document order, that turn ``old`` into ``new``."""
    index = PositionIndex(old, encoding)
    edits: list[Edit] = []
    for start, end, replacement in _hunks(old, new):
        start_line, start_char = index.position(start)
        end_line, end_char = index.position(end)
        edits.append(Edit(start_line, start_char, end_line, end_char, replacement))
    return edits


def apply_edits(text: str, edits: Iterable[Edit], encoding: PositionEncoding = "utf-16") -> str:
    """``text`` with ``edits`` applied as an editor applies one ``TextDocumentEdit``.

    Raises:
        ValueError: two edits overlap, or a position is negative.
    """
    index = PositionIndex(text, encoding)
    spans = sorted(
        (
            (index.offset(e.start_line, e.start_char), index.offset(e.end_line, e.end_char), n, e)
            for n, e in enumerate(edits)
        ),
        key=lambda span: (span[0], span[2]),
    )
    pieces: list[str] = []
    cursor = 0
    for start, end, _, edit in spans:
        if start < cursor or end < start:
            raise ValueError(f"overlapping or inverted edit {edit}")
        pieces.append(text[cursor:start])
        pieces.append(edit.new_text)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _hunks(old: str, new: str) -> list[tuple[int, int, str]]:
    """(start offset, end offset in ``old``, replacement) for every changed block."""
    if old == new:
        return []
    old_lines, new_lines = split_lines(old), split_lines(new)
    head = _common_prefix_length(old_lines, new_lines)
    tail = _common_prefix_length(old_lines[head:][::-1], new_lines[head:][::-1])
    old_mid = old_lines[head : len(old_lines) - tail]
    new_mid = new_lines[head : len(new_lines) - tail]
    old_offsets = [0, *accumulate(len(line) for line in old_lines)]
    new_offsets = [0, *accumulate(len(line) for line in new_lines)]
    matcher = difflib.SequenceMatcher(
        None, old_mid, new_mid, autojunk=len(old_mid) * len(new_mid) > _AUTOJUNK_ABOVE
    )
    hunks: list[tuple[int, int, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = old_offsets[head + i1], old_offsets[head + i2]
        replacement = new[new_offsets[head + j1] : new_offsets[head + j2]]
        hunk = _trim(old, start, end, replacement)
        if hunk[0] != hunk[1] or hunk[2]:
            hunks.append(hunk)
    return hunks


def _trim(old: str, start: int, end: int, replacement: str) -> tuple[int, int, str]:
    r"""Shrink a block replacement to the part that differs, never splitting a ``\r\n``."""
    original = old[start:end]
    limit = min(len(original), len(replacement))
    prefix = 0
    while prefix < limit and original[prefix] == replacement[prefix]:
        prefix += 1
    if 0 < prefix < len(original) and original[prefix - 1 : prefix + 1] == "\r\n":
        prefix -= 1
    suffix = 0
    while suffix < limit - prefix and original[-1 - suffix] == replacement[-1 - suffix]:
        suffix += 1
    cut = len(original) - suffix
    if suffix > 0 and cut > 0 and original[cut - 1 : cut + 1] == "\r\n":
        suffix -= 1
    return start + prefix, end - suffix, replacement[prefix : len(replacement) - suffix]


def _common_prefix_length(a: list[str], b: list[str]) -> int:
    count = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        count += 1
    return count

r"""Text edits in LSP terms: lines and positions, minimal edits between two texts, applying them.

LSP splits a document into lines at ``\n``, ``\r\n`` and ``\r`` only (``str.splitlines`` also
splits at form feeds, ``\x85``, ``\u2028`` and more, so it is not used here). A position is a
line and a character offset counted in the negotiated encoding: UTF-16 code units (the protocol's
default), UTF-8 bytes or UTF-32 code points. An emoji outside the Basic Multilingual Plane is 2
UTF-16 units, 4 UTF-8 bytes and 1 code point.

An editor keeps the cursor, marks, folds and undo history of everything an edit does not touch,
so a change goes out as the changed hunks only, never as one whole-buffer replacement (conform's
discipline). ``text_edits`` diffs the lines with difflib, then trims the common prefix and suffix
of every changed block, so a one-word change is a one-word edit. Offsets never fall between the
``\r`` and ``\n`` of a line break, where no LSP position exists.

``edit_intact`` tells whether an edit landed intact although the editor applied it to text that
had changed meanwhile. A client applying unversioned edits (Neovim without the plugin) may apply
an edit computed for ``base`` to a buffer the user had already changed. When the user's change
was on other lines the edit still lands exactly; when it was on the edit's lines before it (or
added lines above) the edit lands at the wrong place. The two are told apart from the texts
alone: the edited region of ``expected``, with the rest of its lines around it, must occur
exactly once in ``final``, and the unedited region of ``base`` with the same lines around it not
at all. Anything it cannot show intact counts as not intact (the safe answer).
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]
"""The position encodings LSP 3.17 defines (``PositionEncodingKind``)."""

ENCODINGS: tuple[PositionEncoding, ...] = ("utf-8", "utf-16", "utf-32")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break; the last one may have none.

    ``""`` is no lines; a text ending in a line break has no empty last element.
    """
    lines: list[str] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def line_starts(text: str) -> list[int]:
    """The code-point offset where each LSP line starts (line 0 starts at 0)."""
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


def units(text: str, encoding: PositionEncoding) -> int:
    """The length of ``text`` in the units of ``encoding``."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-16":
        return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
    return len(text.encode("utf-8", "surrogatepass"))


def _char_units(char: str, encoding: PositionEncoding) -> int:
    code = ord(char)
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if code > 0xFFFF else 1
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def line_content_end(text: str, start: int) -> int:
    """The offset where the line starting at ``start`` ends, before its line break."""
    end = start
    while end < len(text) and text[end] not in "\r\n":
        end += 1
    return end


class PositionIndex:
    """Converts between code-point offsets and LSP positions of one text."""

    def __init__(self, text: str, encoding: PositionEncoding) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = line_starts(text)

    def position(self, offset: int) -> tuple[int, int]:
        r"""The (line, character) of a code-point offset (never inside a ``\r\n``)."""
        line = bisect_right(self.starts, offset) - 1
        return line, units(self.text[self.starts[line] : offset], self.encoding)

    def offset(self, line: int, character: int) -> int:
        """The code-point offset of a position.

        As LSP prescribes, a character past the end of its line means the end of the line and a
        line past the last one means the end of the text. A character inside a multi-unit code
        point lands after that code point.
        """
        if line < 0 or character < 0:
            raise ValueError(f"negative position ({line}, {character})")
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = line_content_end(self.text, start)
        offset, counted = start, 0
        while offset < end and counted < character:
            counted += _char_units(self.text[offset], self.encoding)
            offset += 1
        return offset


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


def _region(base: str, expected: str) -> tuple[int, int, int]:
    """``base[:start]`` and ``base[end:]`` are common to both; ``expected`` ends at ``e_end``."""
    limit = min(len(base), len(expected))
    start = 0
    while start < limit and base[start] == expected[start]:
        start += 1
    suffix = 0
    while (
        suffix < limit - start
        and base[len(base) - 1 - suffix] == expected[len(expected) - 1 - suffix]
    ):
        suffix += 1
    return start, len(base) - suffix, len(expected) - suffix


def edit_intact(base: str, expected: str, final: str) -> bool:
    """Whether ``final`` holds the edit ``base → expected`` exactly, other lines aside."""
    if expected == final:
        return True
    start, end, e_end = _region(base, expected)
    line_start = base.rfind("\n", 0, start) + 1
    line_end = base.find("\n", end)
    line_end = len(base) if line_end == -1 else line_end
    before, after = base[line_start:start], base[end:line_end]
    edited = before + expected[start:e_end] + after
    original = before + base[start:end] + after
    lines = "\n" + final + "\n"
    found = lines.count("\n" + edited + "\n")
    return found == 1 and (original == edited or "\n" + original + "\n" not in lines)

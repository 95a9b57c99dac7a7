r"""LSP lines and positions over Python strings, in the three position encodings.

LSP splits a document into lines at ``\n``, ``\r\n`` and ``\r`` only (``str.splitlines`` also
splits at form feeds, ``\x85``, ``\u2028`` and more, so it is not used here). A position is a
line and a character offset counted in the negotiated encoding: UTF-16 code units (the protocol's
default), UTF-8 bytes or UTF-32 code points. An emoji outside the Basic Multilingual Plane is 2
UTF-16 units, 4 UTF-8 bytes and 1 code point.
"""

from __future__ import annotations

import re
from bisect import bisect_right
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

"""Finding ``oldText`` for ``edit`` and mapping the match back onto the file's own text.

Matching follows pi: line endings are compared as LF, an exact match is tried first, then a match
in pi's fuzzy-normalized space (NFKC, trailing whitespace stripped on every line, smart quotes,
Unicode dashes and special spaces made ASCII). Unlike pi, a fuzzy match never rewrites the file in
normalized form: the match is mapped back to a span of the original text and only that span is
replaced. The mapping is built from segments: runs the normalization leaves as they are map one
character to one; a character cluster NFKC changes maps as a whole (a match edge inside it takes
the normalized form of that cluster only); stripped trailing whitespace maps to nothing. Pure.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass

from pi_lsp.session.jsonl import js_len

_TRANSLATION = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u202f\u205f\u3000", " "),
        **{chr(code): " " for code in range(0x2002, 0x200B)},
    }
)
# What JavaScript's trimEnd() removes (WhiteSpace and LineTerminator, minus \n \r handled apart).
_JS_WHITESPACE = " \t\v\f\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(code) for code in range(0x2000, 0x200B)
)


def to_lf(text: str) -> str:
    """CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalize_for_fuzzy_match(text: str) -> str:
    """pi's fuzzy form: NFKC, per-line trailing whitespace stripped, quotes/dashes/spaces ASCII."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip(_JS_WHITESPACE) for line in text.split("\n"))
    return text.translate(_TRANSLATION)


def count_occurrences(haystack: str, needle: str) -> int:
    """Non-overlapping occurrences as ``haystack.split(needle).length - 1`` counts them."""
    if needle:
        return haystack.count(needle)
    return js_len(haystack) - 1 if haystack else -1


@dataclass(frozen=True, slots=True)
class LfView:
    """A text with LF line endings and the original offset of each of its positions."""

    text: str
    offsets: list[int] | None
    """``offsets[i]`` is the original index of ``text[i]`` (one extra entry for the end);
    None when the original had no CR, so positions are the same."""

    def to_original(self, position: int) -> int:
        """The original offset of an LF-text position."""
        return position if self.offsets is None else self.offsets[position]


def lf_view(original: str) -> LfView:
    """The LF form of ``original`` with its offset map."""
    if "\r" not in original:
        return LfView(original, None)
    chars: list[str] = []
    offsets: list[int] = []
    index = 0
    while index < len(original):
        char = original[index]
        offsets.append(index)
        if char == "\r":
            chars.append("\n")
            index += 2 if original.startswith("\n", index + 1) else 1
        else:
            chars.append(char)
            index += 1
    offsets.append(len(original))
    return LfView("".join(chars), offsets)


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of LF text and what normalization made of it."""

    lf_start: int
    lf_end: int
    fz_start: int
    fz_end: int
    linear: bool
    """Characters map one to one (same length on both sides)."""


@dataclass(frozen=True, slots=True)
class Span:
    """A span of LF text to replace, and normalized text to keep around the new text."""

    start: int
    end: int
    prefix: str = ""
    suffix: str = ""


class FuzzyView:
    """The fuzzy-normalized form of an LF text, with a map back to the LF text."""

    def __init__(self, lf: str) -> None:
        self.segments: list[Segment] = []
        pieces: list[str] = []
        self._lf_pos = 0
        self._fz_pos = 0
        for number, line in enumerate(lf.split("\n")):
            if number:
                self._add(pieces, "\n", "\n", linear=True)
            self._add_line(pieces, line)
        self.text = "".join(pieces).translate(_TRANSLATION)
        self._fz_starts = [segment.fz_start for segment in self.segments]
        self._fz_ends = [segment.fz_end for segment in self.segments]

    def _add(self, pieces: list[str], source: str, result: str, *, linear: bool) -> None:
        segment = Segment(
            self._lf_pos,
            self._lf_pos + len(source),
            self._fz_pos,
            self._fz_pos + len(result),
            linear,
        )
        self.segments.append(segment)
        pieces.append(result)
        self._lf_pos += len(source)
        self._fz_pos += len(result)

    def _add_line(self, pieces: list[str], line: str) -> None:
        clusters = _normalized_clusters(line)
        keep = len("".join(normalized for _, normalized in clusters).rstrip(_JS_WHITESPACE))
        run = ""
        for source, normalized in clusters:
            if source == normalized and keep >= len(run) + len(source):
                run += source
                continue
            if run:
                self._add(pieces, run, run, linear=True)
                keep -= len(run)
                run = ""
            kept = normalized[: max(keep, 0)]
            self._add(pieces, source, kept, linear=source == kept)
            keep -= len(normalized)
        if run:
            self._add(pieces, run, run, linear=True)

    def span(self, start: int, end: int) -> Span:
        """The LF span (plus normalized edges) behind the fuzzy span ``[start, end)``."""
        first = bisect.bisect_right(self._fz_ends, start)
        lf_start, prefix, inside = self._start_of(first, start)
        if end == start:
            if not inside:
                return Span(lf_start, lf_start)
            segment = self.segments[first]
            return Span(lf_start, segment.lf_end, prefix, self.text[start : segment.fz_end])
        last = bisect.bisect_left(self._fz_starts, end) - 1
        segment = self.segments[last]
        if segment.linear:
            return Span(lf_start, segment.lf_start + end - segment.fz_start, prefix)
        return Span(lf_start, segment.lf_end, prefix, self.text[end : segment.fz_end])

    def _start_of(self, index: int, start: int) -> tuple[int, str, bool]:
        if index >= len(self.segments):
            return self._lf_pos, "", False
        segment = self.segments[index]
        if segment.linear:
            return segment.lf_start + start - segment.fz_start, "", False
        inside = start > segment.fz_start
        return segment.lf_start, self.text[segment.fz_start : start], inside


def _normalized_clusters(line: str) -> list[tuple[str, str]]:
    """The line in pieces, each with its NFKC form; trailing whitespace is a piece of its own.

    The body is cut before each non-combining character. When normalizing the pieces separately
    does not give the body's NFKC form (composition across a cut, as Hangul jamo do), the whole
    body is one piece.
    """
    body = line.rstrip(_JS_WHITESPACE)
    trailing = line[len(body) :]
    pairs: list[tuple[str, str]] = []
    if body.isascii():
        pairs = [(body, body)] if body else []
    else:
        clusters: list[str] = []
        for char in body:
            if clusters and unicodedata.combining(char):
                clusters[-1] += char
            else:
                clusters.append(char)
        pairs = [(cluster, unicodedata.normalize("NFKC", cluster)) for cluster in clusters]
        whole = unicodedata.normalize("NFKC", body)
        if "".join(normalized for _, normalized in pairs) != whole:
            pairs = [(body, whole)]
    if trailing:
        pairs.append((trailing, unicodedata.normalize("NFKC", trailing)))
    return pairs

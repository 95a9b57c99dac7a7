"""Property tests: an edit changes the matched span and nothing else."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pi_lsp.tools import ToolError
from pi_lsp.tools.edit import apply_replacement
from pi_lsp.tools.edit_match import FuzzyView, normalize_for_fuzzy_match

# Letters, whitespace (trailing whitespace is stripped in fuzzy space), and the quotes, dashes
# and spaces pi's fuzzy matching folds to ASCII.
ALPHABET = "ab \t\n'\"“”‘’—–-\u00a0\u2003"
texts = st.text(alphabet=ALPHABET, min_size=1, max_size=40)
replacements = st.text(alphabet="XYZ", max_size=5)


@st.composite
def text_and_part(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a non-empty slice of it."""
    text = draw(texts)
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return text, text[start:end]


def _replaced(text: str, old: str, new: str) -> str | None:
    """``text`` after the edit; None when the tool refuses it (not found, ambiguous, no change)."""
    try:
        return apply_replacement(text, old, new, path="p").text
    except ToolError:
        return None


@settings(max_examples=300, deadline=None)
@given(text_and_part(), replacements)
def test_exact_edit_replaces_the_first_occurrence_only(case: tuple[str, str], new: str) -> None:
    text, old = case
    result = _replaced(text, old, new)
    if result is None:
        return
    first = text.find(old)
    assert result == text[:first] + new + text[first + len(old) :]


@settings(max_examples=300, deadline=None)
@given(text_and_part(), replacements)
def test_fuzzy_edit_keeps_every_character_outside_the_replaced_span(
    case: tuple[str, str], new: str
) -> None:
    text, part = case
    old = normalize_for_fuzzy_match(part)
    assume(old and old not in text)
    result = _replaced(text, old, new)
    if result is None:
        return
    tail = len(result) - len(new)
    spans = [
        (a, len(text) - (tail - a))
        for a in range(0, min(len(text), tail) + 1)
        if result[:a] == text[:a]
        and result[a : a + len(new)] == new
        and result[a + len(new) :] == text[len(text) - (tail - a) :]
    ]
    assert any(
        normalize_for_fuzzy_match(text[a:b]) == normalize_for_fuzzy_match(old) for a, b in spans
    ), (text, old, result)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_fuzzy_view_reproduces_pis_normalization(text: str) -> None:
    lf = text.replace("\r\n", "\n").replace("\r", "\n")
    assert FuzzyView(lf).text == normalize_for_fuzzy_match(lf)

"""Did an edit land intact, although the editor applied it to text that had changed meanwhile?

A client applying unversioned edits (Neovim without the plugin) may apply an edit computed for
``base`` to a buffer the user had already changed. When the user's change was on other lines the
edit still lands exactly; when it was on the edit's lines before it (or added lines above) the
edit lands at the wrong place. ``edit_intact`` tells the two apart from the texts alone: the
edited region of ``expected``, with the rest of its lines around it, must occur exactly once in
``final``, and the unedited region of ``base`` with the same lines around it not at all. Anything
it cannot show intact counts as not intact (the safe answer).
"""

from __future__ import annotations


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

"""The line-numbered diff pi stores in ``edit`` results (``details.diff``, ``firstChangedLine``).

Not a unified diff: each changed line is ``+NN text`` or ``-NN text``, context lines are
`` NN text`` (numbers right-aligned to the width of the larger line count), at most four context
lines on each side of a change, and `` <pad> ...`` where lines are skipped. pi computes the line
changes with jsdiff's ``diffLines``; here ``difflib`` does it on the same line tokens (each line
keeps its newline), after the common head and tail are set aside, which gives the same hunks for
the edits the tool makes. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

PartKind = Literal["equal", "removed", "added"]
_TOKEN = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True, slots=True)
class DiffResult:
    """The diff text and the first changed line of the new text (None when nothing changed)."""

    diff: str
    first_changed_line: int | None


def diff_parts(old: str, new: str) -> list[tuple[PartKind, list[str]]]:
    """Runs of equal, removed and added line tokens, removals before additions."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    parts: list[tuple[PartKind, list[str]]] = []
    if head:
        parts.append(("equal", a[:head]))
    middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
    matcher = SequenceMatcher(None, middle_a, middle_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("equal", middle_a[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("removed", middle_a[i1:i2]))
        if j2 > j1:
            parts.append(("added", middle_b[j1:j2]))
    if tail:
        parts.append(("equal", a[len(a) - tail :]))
    return parts


def generate_diff_string(old: str, new: str, context_lines: int = 4) -> DiffResult:
    """pi's ``generateDiffString``: numbered changed lines with trimmed context."""
    parts = diff_parts(old, new)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    gap = f" {'':>{width}} ..."
    output: list[str] = []
    old_no = new_no = 1
    last_was_change = False
    first_changed: int | None = None
    for index, (kind, tokens) in enumerate(parts):
        lines = "".join(tokens).split("\n")
        if lines[-1] == "":
            lines.pop()
        if kind != "equal":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                if kind == "added":
                    output.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    output.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = index < len(parts) - 1 and parts[index + 1][0] != "equal"
        if not (last_was_change or next_is_change):
            old_no += len(lines)
            new_no += len(lines)
            last_was_change = False
            continue
        shown, skip_start, skip_end = lines, 0, 0
        if not last_was_change:
            skip_start = max(0, len(lines) - context_lines)
            shown = lines[skip_start:]
        if not next_is_change and len(shown) > context_lines:
            skip_end = len(shown) - context_lines
            shown = shown[:context_lines]
        if skip_start:
            output.append(gap)
            old_no += skip_start
            new_no += skip_start
        for line in shown:
            output.append(f" {old_no:>{width}} {line}")
            old_no += 1
            new_no += 1
        if skip_end:
            output.append(gap)
            old_no += skip_end
            new_no += skip_end
        last_was_change = False
    return DiffResult("\n".join(output), first_changed)

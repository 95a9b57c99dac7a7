"""The ``edit`` tool: replace unique occurrences of ``edits[].oldText`` in a file.

pi 1.6.0's arguments are ``path`` and ``edits: [{oldText, newText}]``, each matched against the
original file and never overlapping; the v0.58.3 shape (``oldText``/``newText`` at the top), a
single edit object and ``edits`` sent as a JSON string are folded into it, as pi's
``prepareEditArguments`` does.

Follows pi's checks and texts (file must be readable and writable, not found, ambiguous,
identical result) and its match order (exact, then fuzzy; occurrences counted in fuzzy space).
Only the matched span of the file changes: a UTF-8 BOM, the bytes outside the span and their
line endings stay as they were; the new text takes the file's line ending (the first one in the
file). pi rewrites the whole file LF-normalized, and fuzzy-normalized after a fuzzy match.

The result's ``details`` hold pi's line-numbered diff (``diff``, ``firstChangedLine``). Not a
unified diff: each changed line is ``+NN text`` or ``-NN text``, context lines are `` NN text``
(numbers right-aligned to the width of the larger line count), at most four context lines on
each side of a change, and `` <pad> ...`` where lines are skipped. pi computes the line changes
with jsdiff's ``diffLines``; here ``difflib`` does it on the same line tokens (each line keeps
its newline), after the common head and tail are set aside, which gives the same hunks for the
edits the tool makes.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

from pydantic import Field, model_validator

from pi_lsp.tools.base import ToolError, ToolInvocation, ToolParams, ToolResult
from pi_lsp.tools.edit_match import (
    FuzzyView,
    LfView,
    Span,
    count_occurrences,
    lf_view,
    normalize_for_fuzzy_match,
    to_lf,
)
from pi_lsp.tools.fs import FileTool

BOM = "\ufeff"
PartKind = Literal["equal", "removed", "added"]
_TOKEN = re.compile(r"[^\n]*\n|[^\n]+")


class Replacement(ToolParams):
    """One targeted replacement of ``edit``."""

    oldText: str = Field(
        description="Exact text for one targeted replacement. It must be unique in the original "
        "file and must not overlap with any other edits[].oldText in the same call."
    )
    newText: str = Field(description="Replacement text for this targeted edit.")


class EditParams(ToolParams):
    """Arguments of ``edit``."""

    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[Replacement] = Field(
        description="One or more targeted replacements. Each edit is matched against the original "
        "file, not incrementally. Do not include overlapping or nested edits. If two changes "
        "touch the same block or nearby lines, merge them into one edit instead."
    )

    @model_validator(mode="before")
    @classmethod
    def _fold_legacy(cls, data: Any) -> Any:
        """pi's ``prepareEditArguments``: JSON-string or single-object ``edits``, old shape."""
        if not isinstance(data, dict):
            return data
        args = dict(data)
        edits = args.get("edits")
        if isinstance(edits, str):
            try:
                parsed = json.loads(edits)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                args["edits"] = parsed
            elif _is_single(parsed):
                args["edits"] = [parsed]
        elif _is_single(edits):
            args["edits"] = [edits]
        if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
            listed = args.get("edits")
            folded = [*listed] if isinstance(listed, list) else []
            folded.append({"oldText": args.pop("oldText"), "newText": args.pop("newText")})
            args["edits"] = folded
        return args


def _is_single(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


class EditTool(FileTool[EditParams]):
    """pi's ``edit``."""

    name = "edit"
    summary = "Make surgical edits to files (find exact text and replace)"
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a "
        "unique, non-overlapping region of the original file. If two changes affect the same "
        "block or nearby lines, merge them into one edit instead of emitting overlapping "
        "edits. Do not include large unchanged regions just to connect distant changes."
    )
    params_model = EditParams

    async def run(self, params: EditParams, call: ToolInvocation) -> ToolResult:
        """Read, replace the one match, write back, report pi's diff details."""
        call.check()
        if not params.edits:
            raise ToolError(
                "Edit tool input is invalid. edits must contain at least one replacement."
            )
        absolute = self.resolve(params.path)
        if not await self.fs.access(absolute, write=True):
            raise ToolError(f"File not found: {params.path}")
        with self.os_errors("read", absolute):
            raw = await self.fs.read_text(absolute)
        call.check()
        pairs = [(e.oldText, e.newText) for e in params.edits]
        edited = apply_replacements(raw, pairs, path=params.path)
        call.check()
        with self.os_errors("open", absolute, "write"):
            await self.fs.write_text(absolute, edited.text)
        diff = generate_diff_string(edited.before_lf, edited.after_lf)
        details = {"diff": diff.diff, "firstChangedLine": diff.first_changed_line}
        if diff.first_changed_line is None:
            del details["firstChangedLine"]
        text = f"Successfully replaced {len(pairs)} block(s) in {params.path}."
        return ToolResult.of_text(text, details)


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The new file text, and the old and new text without BOM in LF form (for the diff)."""

    text: str
    before_lf: str
    after_lf: str


def detect_line_ending(content: str) -> str:
    """CRLF when the file's first line ending is CRLF, else LF (pi's rule)."""
    first = content.find("\n")
    return "\r\n" if first > 0 and content[first - 1] == "\r" else "\n"


@dataclass(frozen=True, slots=True)
class _File:
    """A file's text split for editing: its BOM, the rest, its line ending and LF view."""

    bom: str
    content: str
    ending: str
    view: LfView

    @classmethod
    def of(cls, raw: str) -> _File:
        bom = BOM if raw.startswith(BOM) else ""
        content = raw[len(bom) :]
        return cls(bom, content, detect_line_ending(content), lf_view(content))

    def splice(self, text: str, span: Span, new_lf: str) -> str:
        """``text`` (this file's content, or it edited after ``span``) with ``span`` replaced."""
        replacement = span.prefix + new_lf + span.suffix
        if self.ending == "\r\n":
            replacement = replacement.replace("\n", "\r\n")
        start, end = self.view.to_original(span.start), self.view.to_original(span.end)
        return text[:start] + replacement + text[end:]

    def outcome(self, result: str, unchanged: str) -> EditOutcome:
        """The outcome of editing to ``result``; ``ToolError(unchanged)`` when nothing changed."""
        result_lf = to_lf(result)
        if result_lf == self.view.text:
            raise ToolError(unchanged)
        return EditOutcome(self.bom + result, self.view.text, result_lf)


def apply_replacement(raw: str, old_text: str, new_text: str, *, path: str) -> EditOutcome:
    """Replace the single match of ``old_text`` in a file's text; ``ToolError`` on pi's failures."""
    file = _File.of(raw)
    old_lf, new_lf = to_lf(old_text), to_lf(new_text)
    if not old_lf:
        raise ToolError(f"oldText must not be empty in {path}.")
    span, fuzzy_text = _find(file.view.text, old_lf, path)
    occurrences = count_occurrences(fuzzy_text, normalize_for_fuzzy_match(old_lf))
    if occurrences > 1:
        raise ToolError(
            f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    return file.outcome(
        file.splice(file.content, span, new_lf),
        f"No changes made to {path}. The replacement produced identical content. This might "
        "indicate an issue with special characters or the text not existing as expected.",
    )


def apply_replacements(raw: str, edits: list[tuple[str, str]], *, path: str) -> EditOutcome:
    """Apply ``(oldText, newText)`` pairs, each matched in the original text (pi 1.6.0).

    One pair is :func:`apply_replacement`. Several are each located and checked for uniqueness like
    one (errors name ``edits[i]``), must not overlap, and are spliced in together.
    """
    if len(edits) == 1:
        return apply_replacement(raw, edits[0][0], edits[0][1], path=path)
    file = _File.of(raw)
    olds = [to_lf(old) for old, _ in edits]
    for index, old_lf in enumerate(olds):
        if not old_lf:
            raise ToolError(f"edits[{index}].oldText must not be empty in {path}.")
    matched: list[tuple[Span, int, str]] = []
    for index, (old_lf, (_, new_text)) in enumerate(zip(olds, edits, strict=True)):
        try:
            span, fuzzy_text = _find(file.view.text, old_lf, path)
        except ToolError:
            raise ToolError(
                f"Could not find edits[{index}] in {path}. The oldText must match exactly "
                "including all whitespace and newlines."
            ) from None
        occurrences = count_occurrences(fuzzy_text, normalize_for_fuzzy_match(old_lf))
        if occurrences > 1:
            raise ToolError(
                f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must "
                "be unique. Please provide more context to make it unique."
            )
        matched.append((span, index, to_lf(new_text)))
    matched.sort(key=lambda item: item[0].start)
    for (before, first, _), (after, second, _) in itertools.pairwise(matched):
        if before.end > after.start:
            raise ToolError(
                f"edits[{first}] and edits[{second}] overlap in {path}. Merge them into one "
                "edit or target disjoint regions."
            )
    result = file.content
    for span, _, new_lf in reversed(matched):
        result = file.splice(result, span, new_lf)
    return file.outcome(
        result, f"No changes made to {path}. The replacements produced identical content."
    )


def _find(lf: str, old_lf: str, path: str) -> tuple[Span, str]:
    """The LF span to replace and the file's fuzzy form (for counting occurrences)."""
    index = lf.find(old_lf)
    if index >= 0:
        return Span(index, index + len(old_lf)), normalize_for_fuzzy_match(lf)
    fuzzy = FuzzyView(lf)
    fuzzy_old = normalize_for_fuzzy_match(old_lf)
    index = fuzzy.text.find(fuzzy_old)
    if index < 0:
        raise ToolError(
            f"Could not find the exact text in {path}. The old text must match exactly including "
            "all whitespace and newlines."
        )
    return fuzzy.span(index, index + len(fuzzy_old)), fuzzy.text


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

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
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from pydantic import Field, model_validator

from pi_lsp.tools.base import ToolResult, UpdateCallback, raise_if_aborted
from pi_lsp.tools.edit_diff import generate_diff_string
from pi_lsp.tools.edit_match import (
    FuzzyView,
    Span,
    count_occurrences,
    lf_view,
    normalize_for_fuzzy_match,
    to_lf,
)
from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.file_tool import FileTool
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd

BOM = "\ufeff"


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


def _is_single(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


class EditTool(FileTool[EditParams]):
    """pi's ``edit``."""

    name = "edit"
    summary = "Make surgical edits to files (find exact text and replace)"
    params_model = EditParams

    @property
    def description(self) -> str:
        """pi's description of ``edit``."""
        return (
            "Edit a single file using exact text replacement. Every edits[].oldText must match a "
            "unique, non-overlapping region of the original file. If two changes affect the same "
            "block or nearby lines, merge them into one edit instead of emitting overlapping "
            "edits. Do not include large unchanged regions just to connect distant changes."
        )

    async def run(
        self,
        params: EditParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Read, replace the one match, write back, report pi's diff details."""
        raise_if_aborted(cancel)
        if not params.edits:
            raise ToolError(
                "Edit tool input is invalid. edits must contain at least one replacement."
            )
        absolute = resolve_to_cwd(params.path, self.cwd)
        if not await self.fs.access(absolute, write=True):
            raise ToolError(f"File not found: {params.path}")
        with self.os_errors("read", absolute):
            raw = await self.fs.read_text(absolute)
        raise_if_aborted(cancel)
        pairs = [(e.oldText, e.newText) for e in params.edits]
        edited = apply_edits(raw, pairs, path=params.path)
        raise_if_aborted(cancel)
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


def apply_edit(raw: str, old_text: str, new_text: str, *, path: str) -> EditOutcome:
    """Replace the single match of ``old_text`` in a file's text; ``ToolError`` on pi's failures."""
    bom = BOM if raw.startswith(BOM) else ""
    content = raw[len(bom) :]
    ending = detect_line_ending(content)
    view = lf_view(content)
    old_lf, new_lf = to_lf(old_text), to_lf(new_text)
    if not old_lf:
        raise ToolError(f"oldText must not be empty in {path}.")
    span, fuzzy_text = _find(view.text, old_lf, path)
    fuzzy_old = normalize_for_fuzzy_match(old_lf)
    occurrences = count_occurrences(fuzzy_text, fuzzy_old)
    if occurrences > 1:
        raise ToolError(
            f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    replacement = span.prefix + new_lf + span.suffix
    if ending == "\r\n":
        replacement = replacement.replace("\n", "\r\n")
    start, end = view.to_original(span.start), view.to_original(span.end)
    result = content[:start] + replacement + content[end:]
    result_lf = to_lf(result)
    if result_lf == view.text:
        raise ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected."
        )
    return EditOutcome(bom + result, view.text, result_lf)


def apply_edits(raw: str, edits: list[tuple[str, str]], *, path: str) -> EditOutcome:
    """Apply ``(oldText, newText)`` pairs, each matched in the original text (pi 1.6.0).

    One pair is :func:`apply_edit`. Several are each located and checked for uniqueness like
    one (errors name ``edits[i]``), must not overlap, and are spliced in together.
    """
    if len(edits) == 1:
        return apply_edit(raw, edits[0][0], edits[0][1], path=path)
    bom = BOM if raw.startswith(BOM) else ""
    content = raw[len(bom) :]
    ending = detect_line_ending(content)
    view = lf_view(content)
    olds = [to_lf(old) for old, _ in edits]
    for index, old_lf in enumerate(olds):
        if not old_lf:
            raise ToolError(f"edits[{index}].oldText must not be empty in {path}.")
    matched: list[tuple[Span, int, str]] = []
    for index, (old_lf, (_, new_text)) in enumerate(zip(olds, edits, strict=True)):
        try:
            span, fuzzy_text = _find(view.text, old_lf, path)
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
    result = content
    for span, _, new_lf in reversed(matched):
        replacement = span.prefix + new_lf + span.suffix
        if ending == "\r\n":
            replacement = replacement.replace("\n", "\r\n")
        start, end = view.to_original(span.start), view.to_original(span.end)
        result = result[:start] + replacement + result[end:]
    result_lf = to_lf(result)
    if result_lf == view.text:
        raise ToolError(f"No changes made to {path}. The replacements produced identical content.")
    return EditOutcome(bom + result, view.text, result_lf)


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

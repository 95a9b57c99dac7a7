"""The ``edit`` tool: replace one unique occurrence of ``oldText`` in a file with ``newText``.

Follows pi's checks and texts (file must be readable and writable, not found, ambiguous,
identical result) and its match order (exact, then fuzzy; occurrences counted in fuzzy space).
Only the matched span of the file changes: a UTF-8 BOM, the bytes outside the span and their
line endings stay as they were; the new text takes the file's line ending (the first one in the
file). pi rewrites the whole file LF-normalized, and fuzzy-normalized after a fuzzy match.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import Field

from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback, raise_if_aborted
from pi_lsp.tools.edit_diff import generate_diff_string
from pi_lsp.tools.edit_match import (
    FuzzyView,
    Span,
    count_occurrences,
    lf_view,
    normalize_for_fuzzy_match,
    to_lf,
)
from pi_lsp.tools.errors import ToolError, file_error_message
from pi_lsp.tools.fs import FileSystem
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_to_cwd

BOM = "\ufeff"


class EditParams(ToolParams):
    """Arguments of ``edit``."""

    path: str = Field(description="Path to the file to edit (relative or absolute)")
    oldText: str = Field(description="Exact text to find and replace (must match exactly)")
    newText: str = Field(description="New text to replace the old text with")


class EditTool(Tool[EditParams]):
    """pi's ``edit``."""

    name = "edit"
    summary = "Make surgical edits to files (find exact text and replace)"
    params_model = EditParams

    def __init__(self, cwd: str, fs: FileSystem) -> None:
        super().__init__(cwd)
        self.fs = fs

    @property
    def description(self) -> str:
        """pi's description of ``edit``."""
        return (
            "Edit a file by replacing exact text. The oldText must match exactly (including "
            "whitespace). Use this for precise, surgical edits."
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
        absolute = resolve_to_cwd(params.path, self.cwd)
        if not await self.fs.access(absolute, write=True):
            raise ToolError(f"File not found: {params.path}")
        try:
            raw = await self.fs.read_text(absolute)
        except OSError as exc:
            raise ToolError(file_error_message(exc, "read", absolute)) from None
        raise_if_aborted(cancel)
        edited = apply_edit(raw, params.oldText, params.newText, path=params.path)
        raise_if_aborted(cancel)
        try:
            await self.fs.write_text(absolute, edited.text)
        except OSError as exc:
            raise ToolError(file_error_message(exc, "open", absolute, "write")) from None
        diff = generate_diff_string(edited.before_lf, edited.after_lf)
        details = {"diff": diff.diff, "firstChangedLine": diff.first_changed_line}
        if diff.first_changed_line is None:
            del details["firstChangedLine"]
        return ToolResult.of_text(f"Successfully replaced text in {params.path}.", details)


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

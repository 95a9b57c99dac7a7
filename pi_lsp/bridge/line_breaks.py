r"""Keep pygls's copy of a buffer equal to the editor's when the text has unusual line breaks.

pygls 2.1.1 splits documents with ``str.splitlines``, which also breaks lines at ``\v``,
``\f`` (form feed, common in old C and Python sources), ``\x1c``-``\x1e``, ``\x85``,
``\u2028`` and ``\u2029``. LSP breaks lines at ``\n``, ``\r\n`` and ``\r`` only, so after
such a character every incremental ``didChange`` lands on the wrong line: the server's copy of the
buffer silently diverges from the editor's, and edits computed from it would be applied, with
a matching version, at the wrong place. ``use_lsp_line_breaks`` makes a workspace split lines as
LSP does; the server calls it once the workspace exists (in its ``initialize`` handler).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pygls.workspace import TextDocument, Workspace

from pi_lsp.bridge.text_watch import notify_watches
from pi_lsp.edits.diff import split_lines


class LspTextDocument(TextDocument):
    """A pygls ``TextDocument`` whose lines are LSP lines."""

    @property
    def lines(self) -> Sequence[str]:
        r"""The lines with their line breaks, split at ``\n``, ``\r\n`` and ``\r`` only."""
        return tuple(split_lines(self.source))

    def apply_change(self, change: Any) -> None:
        """Apply one content change, then tell the edit checks watching this document."""
        super().apply_change(change)
        notify_watches(self)


def use_lsp_line_breaks(workspace: Workspace) -> None:
    """Make ``workspace`` (its open documents and every later one) split lines as LSP does."""
    for document in workspace.text_documents.values():
        if type(document) is TextDocument:
            document.__class__ = LspTextDocument
    create = workspace._create_text_document

    def create_lsp_document(*args: Any, **kwargs: Any) -> TextDocument:
        document = create(*args, **kwargs)
        if type(document) is TextDocument:
            document.__class__ = LspTextDocument
        return document

    workspace._create_text_document = create_lsp_document  # type: ignore[method-assign]

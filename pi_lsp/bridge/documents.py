r"""pygls's copies of the editor's buffers: kept equal to the editor's, and watched for edits.

Watch a synced document for the text an applied edit should produce.

After an editor answers ``workspace/applyEdit`` with ``applied: true``, its next ``didChange``
must show the edit's result. A client may batch the edit with the user's typing into one
notification (Neovim debounces changes), so the check is not "the text after the notification
equals the expected text" but "some state of the document, after one of its content changes,
was exactly the expected text": pygls applies content changes one by one
(``TextDocument.apply_change``), and :class:`LspTextDocument` reports each one to the watches
attached to it. An edit applied at stale positions never produces the expected text, so its
watch ends ``False`` as soon as a newer version arrives without it.

Keep pygls's copy of a buffer equal to the editor's when the text has unusual line breaks.

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

from pi_lsp.edits.diff import split_lines


class DocumentTextWatch:
    """One watch on one document (see the module docstring); ``verdict`` as in ``TextWatch``."""

    def __init__(self, document: TextDocument, expected: str) -> None:
        self.document = document
        self.version = document.version
        self.expected = expected
        self.seen = document.source == expected
        watches(document).append(self)

    def changed(self) -> None:
        """The document took one content change: note whether it now holds the text."""
        if not self.seen and self.document.source == self.expected:
            self.seen = True

    def verdict(self) -> bool | None:
        """True once seen; False once a newer version came without it; None before."""
        if self.seen:
            return True
        if self.document.version != self.version:
            return False
        return None

    def close(self) -> None:
        """Detach from the document."""
        attached = watches(self.document)
        if self in attached:
            attached.remove(self)


def watches(document: Any) -> list[DocumentTextWatch]:
    """The watches attached to ``document`` (created on first use)."""
    attached: list[DocumentTextWatch] | None = getattr(document, "_pi_watches", None)
    if attached is None:
        attached = []
        document._pi_watches = attached
    return attached


def notify_watches(document: Any) -> None:
    """Tell ``document``'s watches that it took a content change."""
    for watch in tuple(getattr(document, "_pi_watches", ())):
        watch.changed()


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

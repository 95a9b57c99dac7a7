"""Watch a synced document for the text an applied edit should produce.

After an editor answers ``workspace/applyEdit`` with ``applied: true``, its next ``didChange``
must show the edit's result. A client may batch the edit with the user's typing into one
notification (Neovim debounces changes), so the check is not "the text after the notification
equals the expected text" but "some state of the document, after one of its content changes,
was exactly the expected text": pygls applies content changes one by one
(``TextDocument.apply_change``), and :class:`LspTextDocument` reports each one to the watches
attached to it. An edit applied at stale positions never produces the expected text, so its
watch ends ``False`` as soon as a newer version arrives without it.
"""

from __future__ import annotations

from typing import Any

from pygls.workspace import TextDocument


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

"""Text the editor accepted but has not reported back yet.

An editor answers ``workspace/applyEdit`` and sends the matching ``didChange`` separately (Neovim
debounces it by 150 ms), so right after a successful apply the server's copy of the buffer is
still the old text. The overlay remembers the new text until the server's copy catches up:

- an edit to an open document is pending while the document's version is still the one the edit
  was made against, for at most ``ttl`` seconds (an editor that dropped the edit silently, as
  Neovim does with a stale version, never sends a ``didChange``);
- a created file is pending until the editor opens it to the server (``didOpen`` then carries the
  truth) or its disk content changes (the user saved, or something else wrote it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pi_lsp.edits.bridge import OpenDocument
from pi_lsp.edits.uris import uri_key

DiskStamp = tuple[int, int] | None
"""A file's ``(st_mtime_ns, st_size)``, or None when it does not exist."""


@dataclass(frozen=True, slots=True)
class Pending:
    """The text an applied change produced, and what it was applied to."""

    text: str
    version: int | None
    """The document version the edit was made against; None for a created file."""
    since: float
    created: bool
    disk: DiskStamp = None
    """For a created file: the disk stamp right after the editor created it."""


class Overlay:
    """Pending texts keyed by URI (decoded, so spellings of one URI share an entry)."""

    def __init__(self, *, ttl: float, clock: Callable[[], float]) -> None:
        self.ttl = ttl
        self._clock = clock
        self._pending: dict[str, Pending] = {}

    def record_edit(self, uri: str, version: int | None, text: str) -> None:
        """An edit against ``version`` of an open document was applied, giving ``text``."""
        self._pending[uri_key(uri)] = Pending(text, version, self._clock(), created=False)

    def record_create(self, uri: str, text: str, disk: DiskStamp) -> None:
        """A file was created with ``text`` in the editor; ``disk`` is its stamp afterwards."""
        self._pending[uri_key(uri)] = Pending(text, None, self._clock(), created=True, disk=disk)

    def get(self, uri: str, document: OpenDocument | None, disk: DiskStamp) -> Pending | None:
        """The pending entry for ``uri`` if it is still ahead of the server; stale ones go."""
        key = uri_key(uri)
        pending = self._pending.get(key)
        if pending is None:
            return None
        if self._is_current(pending, document, disk):
            return pending
        del self._pending[key]
        return None

    def is_pending(self, uri: str) -> bool:
        """Whether an entry exists for ``uri`` (without checking it)."""
        return uri_key(uri) in self._pending

    def drop(self, uri: str) -> None:
        """Forget ``uri``'s entry."""
        self._pending.pop(uri_key(uri), None)

    def _is_current(self, pending: Pending, document: OpenDocument | None, disk: DiskStamp) -> bool:
        if pending.created:
            return document is None and disk == pending.disk
        return (
            document is not None
            and document.version == pending.version
            and self._clock() - pending.since <= self.ttl
        )

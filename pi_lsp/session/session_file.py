"""The file behind a session store: deferred creation, migration rewrite, locked appends.

pi creates a new session's file only with the first assistant message (spec 1.5); an old-version
file is rewritten as version 3 before the first append, with a backup (D2); every append goes
through :class:`pi_lsp.session.writer.SessionWriter` under the file lock, after lines another
process appended were handed to the store. This class tracks which of those states the file is
in; the store decides what to write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_lsp.session.reader import parse_appended
from pi_lsp.session.records import Diagnostic, LoadedFile, Record
from pi_lsp.session.writer import ExternalHandler, SessionWriter


class SessionFile:
    """Where a store's entries go on disk (nothing for an in-memory store)."""

    def __init__(self, path: Path | None, loaded: LoadedFile) -> None:
        self.path = path
        self.from_version = loaded.from_version
        self.next_line = loaded.lines + 1
        """Physical line number the next appended line will have."""
        self.on_disk = loaded.header is not None and path is not None
        """True once the header is in the file."""
        self.rewrite_pending = loaded.migrated and path is not None
        self.writer: SessionWriter | None = None
        if self.on_disk and path is not None:
            self.writer = SessionWriter(path, size=loaded.size, needs_newline=loaded.needs_newline)

    def ensure_migrated(self, content: Callable[[], bytes]) -> Diagnostic | None:
        """Rewrite an old-version file with ``content()`` (backup kept); a note when it did."""
        if self.writer is None or not self.rewrite_pending:
            return None
        backup = self.writer.rewrite(content(), f".v{self.from_version}.bak")
        self.rewrite_pending = False
        return Diagnostic(str(self.path), 0, f"migrated from v{self.from_version}; backup {backup}")

    def create(self, lines: list[bytes], on_external: ExternalHandler) -> None:
        """Write the header and every entry so far: the file now exists."""
        assert self.path is not None
        writer = SessionWriter(self.path, size=0, needs_newline=False)
        writer.append(b"".join(lines), on_external)
        self.next_line = len(lines) + 1
        self.writer = writer
        self.on_disk = True

    def append(self, make: Callable[[], Record], on_external: ExternalHandler) -> Record:
        """Append the record ``make()`` builds once the file is locked and caught up."""
        assert self.writer is not None
        with self.writer.locked(on_external) as fd:
            record = make()
            self.writer.write(fd, record.raw + b"\n")
            record.line = self.next_line
            self.next_line += 1
        return record

    def parse_external(self, data: bytes) -> tuple[list[Record], list[Diagnostic]]:
        """Records and problems in bytes another process appended."""
        assert self.path is not None
        fresh, problems = parse_appended(data, self.path, self.next_line)
        self.next_line += data.count(b"\n")
        return fresh, problems

    def catch_up(self, on_external: ExternalHandler) -> None:
        """Hand what other processes appended to ``on_external`` (a shared lock, no writing)."""
        if self.writer is not None:
            self.writer.catch_up(on_external)

    def close(self) -> None:
        """Release the file descriptor."""
        if self.writer is not None:
            self.writer.close()

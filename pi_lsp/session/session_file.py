"""The file behind a session store: deferred creation, migration rewrite, locked appends.

A new session's file is created with its first user or assistant message, as pi 1.6.0 does (so
an acknowledged prompt survives a crash before the reply); an old-version file is rewritten as
version 3 before the first append, with a backup (D2); every append goes through
:class:`pi_lsp.session.writer.SessionWriter` under the file lock, after lines another process
appended were handed to the store. The first write never adds a second header: if another
process wrote the file first, its header is adopted and our entries go after its lines. After
:meth:`SessionFile.close` nothing is written. This class tracks which of those states the file
is in; the store decides what to write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.migrate import file_version
from pi_lsp.session.reader import parse_appended, parse_session_bytes
from pi_lsp.session.records import Diagnostic, LoadedFile, Record, SessionFileError
from pi_lsp.session.writer import ExternalHandler, SessionWriter


class SessionClosedError(SessionFileError):
    """A write to a session that was closed (its lock may belong to someone else now)."""


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
        self.closed = False
        self.writer: SessionWriter | None = None
        if self.on_disk and path is not None:
            self.writer = SessionWriter(path, size=loaded.size, needs_newline=loaded.needs_newline)
            self.writer.prefix = loaded.prefix

    def ensure_migrated(self, content: Callable[[], bytes]) -> Diagnostic | None:
        """Rewrite an old-version file with ``content()`` (backup kept); a note when it did."""
        if self.writer is None or not self.rewrite_pending:
            return None
        self._check_open()
        backup = self.writer.rewrite(content(), f".v{self.from_version}.bak")
        self.rewrite_pending = False
        return Diagnostic(str(self.path), 0, f"migrated from v{self.from_version}; backup {backup}")

    def create(
        self, header: bytes, entries: list[bytes], on_external: ExternalHandler
    ) -> JsonObject | None:
        """Write the header line and every entry line so far: the file now exists.

        Returns None, or the header of the file another process wrote here first: its entries
        were handed to ``on_external`` and ours appended after them (no second header).

        Raises:
            SessionFileError: the path holds something that is not a session file (untouched).
        """
        assert self.path is not None
        self._check_open()
        writer = SessionWriter(self.path, size=0, needs_newline=False)
        found: list[bytes] = []
        adopted: JsonObject | None = None
        try:
            with writer.locked(lambda data, _start: found.append(data)) as fd:
                existing = b"".join(found)
                lead = writer.needs_newline  # what is there does not end with a newline
                if existing.strip():
                    adopted, writer.prefix = self._adopt(existing, on_external)
                    first = b""
                else:  # missing, empty or blank: ours is the only header
                    first = header
                    writer.prefix = existing + (b"\n" if lead else b"") + header
                writer.write(fd, first + b"".join(entries))
        except BaseException:
            writer.close()
            raise
        self.next_line = existing.count(b"\n") + lead + bool(first) + len(entries) + 1
        self.writer = writer
        self.on_disk = True
        return adopted

    def _adopt(self, existing: bytes, on_external: ExternalHandler) -> tuple[JsonObject, bytes]:
        """The header and header bytes of a file another process wrote first.

        Its entries are handed to ``on_external``.
        """
        assert self.path is not None
        loaded = parse_session_bytes(existing, self.path)  # raises for a non-session file
        if loaded.header is None or file_version(loaded.header) < 3:
            raise SessionFileError(
                self.path, 0, "another program wrote this file meanwhile; reopen the session"
            )
        self.next_line = loaded.prefix.count(b"\n") + 1
        rest = existing[len(loaded.prefix) :]
        if rest:
            on_external(rest, len(loaded.prefix))
        return loaded.header, loaded.prefix

    def append(self, make: Callable[[], Record], on_external: ExternalHandler) -> Record:
        """Append the record ``make()`` builds once the file is locked and caught up."""
        assert self.writer is not None
        self._check_open()
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
        if self.writer is not None and not self.closed:
            self.writer.catch_up(on_external)

    def close(self) -> None:
        """Release the file descriptor; from now on every write raises."""
        self.closed = True
        if self.writer is not None:
            self.writer.close()

    def _check_open(self) -> None:
        if self.closed:
            raise SessionClosedError(self.path or "<memory>", 0, "the session was closed")

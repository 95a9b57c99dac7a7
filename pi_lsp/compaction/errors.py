"""Typed failures of compaction and branch summaries; each message is one readable line."""

from __future__ import annotations


class CompactionError(Exception):
    """Base of every compaction failure; the session is left untouched when one is raised."""


class AlreadyCompactedError(CompactionError):
    """The leaf is a compaction entry: there is nothing new since the last compaction."""

    def __init__(self) -> None:
        super().__init__("Already compacted")


class NothingToCompactError(CompactionError):
    """The whole history fits in the kept part: a summary request would be empty."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"Nothing to compact ({reason})")
        self.reason = reason


class SummarizationError(CompactionError):
    """The model failed to produce a summary (pi: ``Summarization failed: …``)."""


class SessionChangedError(CompactionError):
    """Entries were appended while the summary was being written; nothing was appended."""

"""pydantic models of compaction's settings, results and reports, and its typed failures.

Python attributes are snake_case; the JSON form (``model_dump(by_alias=True)``, the generated
JSON Schemas and the CLI output) uses pi's camelCase names, as the conformance corpus does.
Every failure derives from :class:`CompactionError`, whose message is one readable line; the
session is left untouched when one is raised. Pure data: nothing here reads a session or calls a
model.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Wire(BaseModel):
    """Base: camelCase aliases on the wire, snake_case names in Python."""

    # attribute docstrings become the schemas' descriptions (editors show the settings' ones)
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        use_attribute_docstrings=True,
    )


class CompactionSettings(_Wire):
    """pi's ``compaction.*`` settings (spec 6.1)."""

    enabled: bool = True
    """Automatic compaction on/off (manual compaction works either way)."""
    reserve_tokens: int = Field(default=16384, ge=0)
    """Tokens kept free for the reply; compaction triggers above ``window - reserve``."""
    keep_recent_tokens: int = Field(default=20000, ge=0)
    """Roughly how many tokens of recent history stay verbatim after a compaction."""


class BranchSummarySettings(_Wire):
    """pi's ``branchSummary.*`` settings (spec 7.3)."""

    reserve_tokens: int = Field(default=16384, ge=0)
    """Subtracted from the model's window to get the budget of the summarized branch."""
    skip_prompt: bool = False
    """Editors: navigate without asking whether to summarize."""


class ContextEstimate(_Wire):
    """pi's ``estimateContextTokens`` result."""

    tokens: int
    """``usage_tokens + trailing_tokens``."""
    usage_tokens: int
    """Context size the provider reported with the last usable assistant message (0: none)."""
    trailing_tokens: int
    """Estimated tokens of the messages after that assistant message (all of them if none)."""
    last_usage_index: int | None
    """Index of that assistant message in the messages, or null."""


class ContextUsage(_Wire):
    """How full the model's window is (pi's ``getContextUsage``)."""

    tokens: int | None
    """Estimated context tokens; null right after a compaction until a new usage arrives."""
    context_window: int
    percent: float | None
    """``tokens / context_window × 100``; null when ``tokens`` is."""


class CompactionDetails(_Wire):
    """Files the summarized history touched, stored in the entry's ``details`` (spec 6.5)."""

    read_files: list[str]
    """Files only read (sorted in UTF-16 code-unit order, as JavaScript sorts)."""
    modified_files: list[str]
    """Files written or edited (same order)."""


class FileOpsOut(_Wire):
    """File operations as pi collects them (JavaScript sets, in insertion order)."""

    read: list[str]
    written: list[str]
    edited: list[str]


class MessageRef(_Wire):
    """A message by the session entry it came from."""

    entry_id: str
    role: str


class CompactionResult(_Wire):
    """pi's ``CompactionResult``: what ``compact`` appended (and the RPC ``compact`` returns)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: CompactionDetails


class CompactionPlan(_Wire):
    """A compaction preparation (``pi-lsp compact plan --json``), in the corpus's shape."""

    first_kept_entry_id: str
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    settings: CompactionSettings
    messages_to_summarize: list[MessageRef]
    """Summarized and replaced by the summary; with D2 this starts with what the previous
    compaction kept verbatim (pi v0.58.3 drops those messages)."""
    turn_prefix_messages: list[MessageRef]
    """The start of a turn split by the cut; summarized separately."""
    previous_kept_count: int
    """How many of ``messages_to_summarize`` the previous compaction had kept (the D2 part)."""
    file_ops: FileOpsOut
    file_lists: CompactionDetails


class NothingToCompact(_Wire):
    """``pi-lsp compact plan --json`` when a compaction would summarize nothing."""

    nothing_to_compact: bool = True
    reason: str


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

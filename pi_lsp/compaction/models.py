"""What a compaction carries: its settings, its plan, the files it saw, its results and failures.

The settings, results and reports are pydantic models: Python attributes are snake_case; the
JSON form (``model_dump(by_alias=True)``, the generated JSON Schemas and the CLI output) uses
pi's camelCase names, as the conformance corpus does. The plan in memory is plain dataclasses:
:class:`CutPoint`, :class:`CompactionPreparation` (pi's, plus the entry id behind each message)
and :class:`FileOps`, which collects which files a history read and modified, carried from
summary to summary (spec 6.5): only ``read``, ``write`` and ``edit`` tool calls with a string
``path`` count, kept exactly as the model wrote it, sorted the way JavaScript sorts strings
(UTF-16 code units). Every failure derives from :class:`CompactionError`, whose message is one
readable line; the session is left untouched when one is raised. Pure data: nothing here reads a
session or calls a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_lsp.javascript import utf16_key
from pi_lsp.session.jsonl import JsonObject


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


@dataclass(frozen=True, slots=True)
class CutPoint:
    """pi's ``CutPointResult`` (indices into the projected entries)."""

    first_kept_index: int
    """Projection index of the first entry kept verbatim."""
    turn_start_index: int
    """Projection index of the entry that starts the split turn; -1 when the cut starts a turn
    or no turn start exists in range."""
    is_split_turn: bool
    """True when the cut lies inside a turn and that turn's start was found in range."""


_KINDS = {"read": "read", "write": "written", "edit": "edited"}


@dataclass(slots=True)
class FileOps:
    """pi's ``FileOperations``: three insertion-ordered sets of paths."""

    read: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)

    def add_details(self, details: Any) -> None:
        """Fold in the ``{readFiles, modifiedFiles}`` of an earlier summary (modified → edited)."""
        if not isinstance(details, dict):
            return
        for key, target in (("readFiles", self.read), ("modifiedFiles", self.edited)):
            paths = details.get(key)
            if isinstance(paths, list):
                target.update(dict.fromkeys(paths))

    def add_message(self, message: JsonObject) -> None:
        """Record the file tool calls of a message; messages without any are ignored.

        An assistant's tool calls count, and so do the calls a codemode script made
        (``toolResult.nestedCalls``, pi 1.6.0).
        """
        role = message.get("role")
        if role == "toolResult":
            nested = message.get("nestedCalls")
            calls = nested.get("calls") if isinstance(nested, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict):
                    self._add_call(call.get("name"), call.get("arguments"))
            return
        if role != "assistant":
            return
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "toolCall":
                self._add_call(block.get("name"), block.get("arguments"))

    def _add_call(self, name: object, args: object) -> None:
        kind = _KINDS.get(name) if isinstance(name, str) else None
        path = args.get("path") if isinstance(args, dict) else None
        if kind is not None and isinstance(path, str) and path:
            getattr(self, kind)[path] = None

    def add_messages(self, messages: Iterable[JsonObject]) -> None:
        """:meth:`add_message` for each message."""
        for message in messages:
            self.add_message(message)

    def lists(self) -> CompactionDetails:
        """pi's ``computeFileLists``: modified = edited ∪ written; read-only = read − modified."""
        modified = {**self.edited, **self.written}
        read_only = [path for path in self.read if path not in modified]
        return CompactionDetails(
            read_files=sorted(read_only, key=utf16_key),
            modified_files=sorted(modified, key=utf16_key),
        )

    def to_out(self) -> FileOpsOut:
        """The corpus's ``fileOps`` shape."""
        return FileOpsOut(
            read=list(self.read), written=list(self.written), edited=list(self.edited)
        )


@dataclass(slots=True)
class CompactionPreparation:
    """pi's ``CompactionPreparation`` plus the entry ids behind each message."""

    first_kept_entry_id: str
    cut: CutPoint
    tokens_before: int
    previous_summary: str | None
    settings: CompactionSettings
    leaf_id: str | None
    """The path's last entry: a compaction is only appended if the leaf is still there."""
    messages_to_summarize: list[JsonObject] = field(default_factory=list)
    summarize_ids: list[str] = field(default_factory=list)
    turn_prefix_messages: list[JsonObject] = field(default_factory=list)
    turn_prefix_ids: list[str] = field(default_factory=list)
    previous_kept_count: int = 0
    """Leading messages of ``messages_to_summarize`` that the previous compaction kept (D2)."""
    file_ops: FileOps = field(default_factory=FileOps)

    @property
    def is_split_turn(self) -> bool:
        """The cut lies inside a turn; its beginning is summarized separately."""
        return self.cut.is_split_turn

    @property
    def nothing_to_summarize(self) -> bool:
        """Neither history nor a turn prefix to summarize: a request would be empty."""
        return not self.messages_to_summarize and not self.turn_prefix_messages

    def file_lists(self) -> CompactionDetails:
        """``computeFileLists`` of the file operations (the new entry's ``details``)."""
        return self.file_ops.lists()

    def to_plan(self) -> CompactionPlan:
        """The corpus-shaped report of this preparation."""

        def refs(messages: list[JsonObject], ids: list[str]) -> list[MessageRef]:
            return [
                MessageRef(entry_id=i, role=str(m.get("role")))
                for i, m in zip(ids, messages, strict=True)
            ]

        return CompactionPlan(
            first_kept_entry_id=self.first_kept_entry_id,
            is_split_turn=self.is_split_turn,
            tokens_before=self.tokens_before,
            previous_summary=self.previous_summary,
            settings=self.settings,
            messages_to_summarize=refs(self.messages_to_summarize, self.summarize_ids),
            turn_prefix_messages=refs(self.turn_prefix_messages, self.turn_prefix_ids),
            previous_kept_count=self.previous_kept_count,
            file_ops=self.file_ops.to_out(),
            file_lists=self.file_lists(),
        )

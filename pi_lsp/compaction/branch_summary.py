"""Summaries of the branch a user leaves when moving elsewhere in the tree (spec 7.1–7.3).

Collecting and budgeting are pure; :func:`generate_branch_summary` calls the model. Writing the
result into the session is ``compact.navigate_tree``'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_lsp.compaction.counter import TokenCounter
from pi_lsp.compaction.entry_messages import branch_message
from pi_lsp.compaction.file_ops import FileOps, format_file_operations
from pi_lsp.compaction.models import CompactionDetails, MessageRef
from pi_lsp.compaction.prompts import (
    BRANCH_INSTRUCTIONS,
    BRANCH_PREAMBLE,
    NO_BRANCH_CONTENT,
    SYSTEM_PROMPT,
    conversation_block,
    with_focus,
)
from pi_lsp.compaction.serialize import serialize_messages
from pi_lsp.compaction.summarize import SummaryModel, SummaryRequest, send
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.projection import latest_edits
from pi_lsp.session.records import Record

BRANCH_MAX_TOKENS = 2048
DEFAULT_WINDOW = 128000
SUMMARY_ENTRY_SHARE = 0.9
"""A summary entry past the budget still goes in while the total is under 90 % of it."""


@dataclass(slots=True)
class BranchEntries:
    """pi's ``CollectEntriesResult``."""

    entries: list[Record]
    """From just below the common ancestor down to the old leaf, oldest first."""
    common_ancestor_id: str | None


@dataclass(slots=True)
class BranchPreparation:
    """pi's ``BranchPreparation`` plus the entry ids behind the messages."""

    messages: list[JsonObject] = field(default_factory=list)
    entry_ids: list[str] = field(default_factory=list)
    total_tokens: int = 0
    file_ops: FileOps = field(default_factory=FileOps)

    def refs(self) -> list[MessageRef]:
        """The messages as ``{entryId, role}`` references."""
        return [
            MessageRef(entry_id=i, role=str(m.get("role")))
            for i, m in zip(self.entry_ids, self.messages, strict=True)
        ]


def collect_branch_entries(
    store: SessionStore, old_leaf_id: str | None, target_id: str
) -> BranchEntries:
    """The entries between the old leaf and its deepest common ancestor with ``target_id``."""
    if not old_leaf_id:
        return BranchEntries(entries=[], common_ancestor_id=None)
    old_ids = {record.id for record in store.branch_path(old_leaf_id)}
    target_path = store.branch_path(target_id)
    ancestor = next((r.id for r in reversed(target_path) if r.id in old_ids), None)
    entries: list[Record] = []
    current = store.get(old_leaf_id)
    while current is not None and current.id != ancestor:
        entries.append(current)
        current = store.get(current.parent_id) if current.parent_id is not None else None
        if len(entries) > len(old_ids):  # a damaged parent cycle: stop rather than loop
            break
    entries.reverse()
    return BranchEntries(entries=entries, common_ancestor_id=ancestor)


def prepare_branch_entries(
    entries: Sequence[Record], token_budget: int = 0, counter: TokenCounter | None = None
) -> BranchPreparation:
    """Newest-first selection of messages within ``token_budget`` tokens (0: no limit)."""
    prep = BranchPreparation()
    for record in entries:
        value = record.value if record.type == "branch_summary" else None
        if value is not None and not value.get("fromHook"):
            prep.file_ops.add_details(value.get("details"))
    counter = counter if counter is not None else TokenCounter()
    edits = latest_edits(entries)  # pi 1.6.0 honours the latest context edit per target
    selected: list[tuple[str, JsonObject]] = []
    for record in reversed(entries):
        edit = edits.get(record.id)
        message = branch_message(record, edit)
        if message is None:
            continue
        prep.file_ops.add_message(message)
        tokens = counter.count(record.id, message) if edit is None else counter.estimator(message)
        if token_budget > 0 and prep.total_tokens + tokens > token_budget:
            summary_entry = record.type in ("compaction", "branch_summary")
            if summary_entry and prep.total_tokens < token_budget * SUMMARY_ENTRY_SHARE:
                selected.append((record.id, message))
                prep.total_tokens += tokens
            break
        selected.append((record.id, message))
        prep.total_tokens += tokens
    for entry_id, message in reversed(selected):
        prep.entry_ids.append(entry_id)
        prep.messages.append(message)
    return prep


def branch_request(
    messages: list[JsonObject], focus: str | None = None, *, replace_instructions: bool = False
) -> SummaryRequest:
    """The branch summary request: transcript plus instructions (or the user's own)."""
    instructions = (
        focus if replace_instructions and focus else with_focus(BRANCH_INSTRUCTIONS, focus)
    )
    prompt = conversation_block(serialize_messages(messages)) + instructions
    return SummaryRequest(
        system=SYSTEM_PROMPT, prompt=prompt, max_tokens=BRANCH_MAX_TOKENS, reasoning=None
    )


async def generate_branch_summary(
    entries: Sequence[Record],
    model: SummaryModel,
    *,
    reserve_tokens: int = 16384,
    focus: str | None = None,
    replace_instructions: bool = False,
    counter: TokenCounter | None = None,
) -> tuple[str, CompactionDetails]:
    """The branch summary to store (preamble, model text, file lists) and its ``details``.

    Raises:
        SummarizationError: the model failed.
    """
    budget = (model.context_window or DEFAULT_WINDOW) - reserve_tokens
    prep = prepare_branch_entries(entries, budget, counter)
    details = prep.file_ops.lists()
    if not prep.messages:
        return NO_BRANCH_CONTENT, details
    request = branch_request(prep.messages, focus, replace_instructions=replace_instructions)
    text = await send(model, request, "Branch summarization failed")
    summary = BRANCH_PREAMBLE + text
    return summary + format_file_operations(details.read_files, details.modified_files), details

"""Applying compactions and tree navigation to a session: the package's one I/O owner.

Everything else in ``pi_lsp.compaction`` is pure or only talks to the model. Here the plan is
made from the store, the summary is awaited, and only then is anything appended, so a failure
or an asyncio cancellation at any await leaves the session exactly as it was. Branch summaries
(spec 7.1-7.3) summarize the branch a user leaves when moving elsewhere in the tree: collecting
and budgeting its entries is pure, :func:`generate_branch_summary` calls the model, and
:func:`navigate_tree` writes the result. A branch summary reads entries slightly differently
from a compaction (pi's ``getMessageFromEntry``, :func:`branch_message`): tool results are
skipped, a ``branch_summary`` with an empty summary still counts, and a compaction is its
summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_lsp.compaction.models import (
    BranchSummarySettings,
    CompactionDetails,
    CompactionError,
    CompactionResult,
    CompactionSettings,
    FileOps,
    MessageRef,
    SessionChangedError,
)
from pi_lsp.compaction.prepare import compaction_window, plan_compaction
from pi_lsp.compaction.summarize import (
    SYSTEM_PROMPT,
    SummaryModel,
    SummaryRequest,
    conversation_block,
    format_file_operations,
    send,
    serialize_messages,
    summarize_compaction,
    summary_layout,
    text_of,
    with_focus,
)
from pi_lsp.compaction.tokens import TokenCounter
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import (
    BranchSummaryEntry,
    ContextEditEntry,
    CustomMessageEntry,
    entry_as,
    known,
    message_as,
)
from pi_lsp.session.jsonl import JsonObject, Record
from pi_lsp.session.messages import UserMessage
from pi_lsp.session.projection import (
    apply_edit,
    branch_summary_message,
    compaction_message,
    custom_message,
    latest_edits,
    message_of,
)

BRANCH_MAX_TOKENS = 2048
DEFAULT_WINDOW = 128000
SUMMARY_ENTRY_SHARE = 0.9
"""A summary entry past the budget still goes in while the total is under 90 % of it."""

BRANCH_INSTRUCTIONS = f"""\
The <conversation> above is a branch of the session that the user is leaving. Summarize it so \
the work can be picked up again later.

Use exactly this Markdown layout:

{summary_layout("branch")}
Keep every section short. Copy file paths, function names and error messages exactly."""

BRANCH_PREAMBLE = """\
The user explored a different conversation branch before returning here.
Summary of that exploration:

"""
"""Put before every branch summary; pi's exact text, since it is part of the stored entry."""

NO_BRANCH_CONTENT = "No content to summarize"
"""Branch summary of a branch without messages (pi's text; no model is asked)."""


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


def branch_message(record: Record, edit: ContextEditEntry | None = None) -> JsonObject | None:
    """pi's ``getMessageFromEntry`` for branch summaries, with the entry's latest edit."""
    entry = known(record)
    if entry is None:
        return None
    if entry["type"] == "message":
        if record.role == "toolResult":
            return None
        message: object = entry.get("message")
        if not isinstance(message, dict):
            return None
        if edit is None:
            return message
        repaired = message_of(entry)
        edited = apply_edit([repaired], edit) if repaired is not None else []
        return edited[0] if edited else None
    if entry["type"] == "custom_message":
        if edit is None:
            return custom_message(record, entry, entry.get("content"))
        edited = apply_edit([custom_message(record, entry, entry.get("content") or [])], edit)
        return edited[0] if edited else None
    if entry["type"] == "branch_summary":
        return branch_summary_message(record, entry)
    if entry["type"] == "compaction":
        return compaction_message(record, entry)
    return None


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
        value = entry_as(record, BranchSummaryEntry)
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


async def compact(
    store: SessionStore,
    model: SummaryModel,
    settings: CompactionSettings | None = None,
    focus: str | None = None,
    *,
    counter: TokenCounter | None = None,
) -> CompactionResult:
    """Summarize the history at the leaf and append a compaction entry (pi's ``compact``).

    ``focus`` is the user's ``/compact <text>``. ``counter`` sizes entries (chars4 if None).

    Raises:
        AlreadyCompactedError: the leaf is a compaction.
        NothingToCompactError: everything fits in the kept part.
        SummarizationError: the model failed.
        SessionChangedError: the leaf moved while the summary was being written.
    """
    settings = settings or CompactionSettings()
    prep = plan_compaction(compaction_window(store), settings, counter)
    summary, details = await summarize_compaction(prep, model, focus)
    if store.leaf_id != prep.leaf_id:
        raise SessionChangedError("Compaction cancelled: the session changed while summarizing")
    store.append_compaction(
        summary,
        prep.first_kept_entry_id,
        prep.tokens_before,
        details=details.model_dump(by_alias=True),
        from_hook=False,
    )
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details=details,
    )


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """What ``navigate_tree`` did."""

    leaf_id: str | None
    """The leaf afterwards (the new branch summary when one was written)."""
    editor_text: str | None = None
    """Text of the user or custom message navigated to, to edit and resend."""
    summary_entry_id: str | None = None
    """The ``branch_summary`` entry written, if any."""
    moved: bool = True
    """False when the target already was the leaf (nothing happened)."""


def _new_leaf(target: Record) -> tuple[str | None, str | None]:
    """Leaf after navigating to ``target``, and the text to put back in the editor."""
    user = message_as(target, UserMessage)
    if user is not None:
        return target.parent_id, text_of(user.get("content"))
    custom = entry_as(target, CustomMessageEntry)
    if custom is not None:
        return target.parent_id, text_of(custom.get("content"))
    return target.id, None


async def navigate_tree(
    store: SessionStore,
    target_id: str,
    *,
    model: SummaryModel | None = None,
    summarize: bool = False,
    settings: BranchSummarySettings | None = None,
    focus: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    counter: TokenCounter | None = None,
) -> NavigationResult:
    """Move to ``target_id`` (pi's ``navigateTree``), optionally summarizing the branch left.

    A user-message or custom-message target puts its text back for editing and the leaf goes
    to its parent; any other target becomes the leaf. With ``summarize``, the branch being left
    is summarized and hung under the new leaf as a ``branch_summary``. ``label`` is set on the
    summary if one was written, else on the target.

    Raises:
        EntryNotFoundError: unknown target.
        CompactionError: ``summarize`` without a model.
        SummarizationError: the model failed (nothing was changed).
    """
    target = store.require(target_id)
    old_leaf = store.leaf_id
    if target_id == old_leaf:
        return NavigationResult(leaf_id=old_leaf, moved=False)
    if summarize and model is None:
        raise CompactionError("No model available to summarize the branch")
    new_leaf, editor_text = _new_leaf(target)
    summary: tuple[str, dict[str, list[str]]] | None = None
    if summarize and model is not None:
        entries = collect_branch_entries(store, old_leaf, target_id).entries
        if entries:
            text, details = await generate_branch_summary(
                entries,
                model,
                reserve_tokens=(settings or BranchSummarySettings()).reserve_tokens,
                focus=focus,
                replace_instructions=replace_instructions,
                counter=counter,
            )
            summary = (text, details.model_dump(by_alias=True))
    if store.leaf_id != old_leaf:
        raise SessionChangedError("Navigation cancelled: the session changed while summarizing")
    if summary is not None:
        summary_id = store.branch_with_summary(new_leaf, summary[0], summary[1], from_hook=False)
        if label:
            store.append_label(summary_id, label)
        return NavigationResult(
            leaf_id=store.leaf_id, editor_text=editor_text, summary_entry_id=summary_id
        )
    if new_leaf is None:
        store.reset_leaf()
    else:
        store.branch(new_leaf)
    if label:
        store.append_label(target_id, label)
    return NavigationResult(leaf_id=store.leaf_id, editor_text=editor_text)

"""Applying compactions and tree navigation to a session: the package's one I/O owner.

Everything else in ``pi_lsp.compaction`` is pure or only talks to the model. Here the plan is
made from the store, the summary is awaited, and only then is anything appended, so a failure
or an asyncio cancellation at any await leaves the session exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_lsp.compaction.branch_summary import collect_branch_entries, generate_branch_summary
from pi_lsp.compaction.counter import TokenCounter
from pi_lsp.compaction.entry_messages import text_of
from pi_lsp.compaction.errors import CompactionError, SessionChangedError
from pi_lsp.compaction.models import BranchSummarySettings, CompactionResult, CompactionSettings
from pi_lsp.compaction.prepare import compaction_window, plan_compaction
from pi_lsp.compaction.summarize import SummaryModel, summarize_compaction
from pi_lsp.session import SessionStore
from pi_lsp.session.records import Record


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
    if target.type == "message" and target.role == "user":
        return target.parent_id, text_of(target.value["message"].get("content"))
    if target.type == "custom_message":
        return target.parent_id, text_of(target.value.get("content"))
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

"""Compaction and branch summaries: folding long history into checkpoint summaries (spec §6–7).

Pure policy (token accounting, cut points, preparation, serialization, prompts) plus one I/O
owner, :mod:`pi_lsp.compaction.compact`, which appends to the session store. Plain Python: no
pygls, no lsprotocol, and no litellm (summaries go through the :class:`SummaryModel` protocol).
"""

from pi_lsp.compaction.compact import (
    BranchEntries,
    BranchPreparation,
    NavigationResult,
    collect_branch_entries,
    compact,
    generate_branch_summary,
    navigate_tree,
    prepare_branch_entries,
)
from pi_lsp.compaction.cut_point import CutPoint, find_cut_point
from pi_lsp.compaction.models import (
    AlreadyCompactedError,
    BranchSummarySettings,
    CompactionDetails,
    CompactionError,
    CompactionPlan,
    CompactionResult,
    CompactionSettings,
    ContextEstimate,
    ContextUsage,
    FileOpsOut,
    MessageRef,
    NothingToCompact,
    NothingToCompactError,
    SessionChangedError,
    SummarizationError,
)
from pi_lsp.compaction.prepare import (
    CompactionPreparation,
    compaction_window,
    context_usage,
    plan_compaction,
    prepare_compaction,
    should_compact,
    usage_known,
)
from pi_lsp.compaction.summarize import SummaryModel, SummaryRequest
from pi_lsp.compaction.tokens import (
    CHARS4,
    Chars4Estimator,
    Estimator,
    TiktokenEstimator,
    TokenCounter,
    calculate_context_tokens,
    estimate_context_tokens,
    estimator_for,
)
from pi_lsp.compaction.transcript import (
    FileOps,
    format_file_operations,
    serialize_conversation,
    serialize_messages,
)

__all__ = [
    "CHARS4",
    "AlreadyCompactedError",
    "BranchEntries",
    "BranchPreparation",
    "BranchSummarySettings",
    "Chars4Estimator",
    "CompactionDetails",
    "CompactionError",
    "CompactionPlan",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "ContextEstimate",
    "ContextUsage",
    "CutPoint",
    "Estimator",
    "FileOps",
    "FileOpsOut",
    "MessageRef",
    "NavigationResult",
    "NothingToCompact",
    "NothingToCompactError",
    "SessionChangedError",
    "SummarizationError",
    "SummaryModel",
    "SummaryRequest",
    "TiktokenEstimator",
    "TokenCounter",
    "calculate_context_tokens",
    "collect_branch_entries",
    "compact",
    "compaction_window",
    "context_usage",
    "estimate_context_tokens",
    "estimator_for",
    "find_cut_point",
    "format_file_operations",
    "generate_branch_summary",
    "navigate_tree",
    "plan_compaction",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "serialize_messages",
    "should_compact",
    "usage_known",
]

"""Compaction and branch summaries: folding long history into checkpoint summaries (spec §6–7).

Pure policy (token accounting, cut points, preparation, serialization, prompts) plus one I/O
owner, :mod:`pi_lsp.compaction.compact`, which appends to the session store. Plain Python: no
pygls, no lsprotocol, and no litellm (summaries go through the :class:`SummaryModel` protocol).
"""

from pi_lsp.compaction.branch_summary import (
    BranchEntries,
    BranchPreparation,
    collect_branch_entries,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_lsp.compaction.compact import NavigationResult, compact, navigate_tree
from pi_lsp.compaction.counter import TokenCounter
from pi_lsp.compaction.cut_point import CutPoint, find_cut_point
from pi_lsp.compaction.errors import (
    AlreadyCompactedError,
    CompactionError,
    NothingToCompactError,
    SessionChangedError,
    SummarizationError,
)
from pi_lsp.compaction.file_ops import FileOps, format_file_operations
from pi_lsp.compaction.models import (
    BranchSummarySettings,
    CompactionDetails,
    CompactionPlan,
    CompactionResult,
    CompactionSettings,
    ContextEstimate,
    ContextUsage,
    FileOpsOut,
    MessageRef,
    NothingToCompact,
)
from pi_lsp.compaction.prepare import (
    CompactionPreparation,
    compaction_window,
    plan_compaction,
    prepare_compaction,
)
from pi_lsp.compaction.serialize import serialize_conversation, serialize_messages
from pi_lsp.compaction.summarize import SummaryModel, SummaryRequest
from pi_lsp.compaction.tokens import (
    CHARS4,
    Chars4Estimator,
    Estimator,
    TiktokenEstimator,
    calculate_context_tokens,
    estimate_context_tokens,
    estimator_for,
)
from pi_lsp.compaction.usage import context_usage, should_compact, usage_known

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

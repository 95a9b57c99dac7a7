"""``pi-lsp compact plan``: what a compaction of a session would summarize and keep.

Prints the preparation with the corpus's field names (``firstKeptEntryId``, ``isSplitTurn``,
``tokensBefore``, ``previousSummary``, ``messagesToSummarize``, ``turnPrefixMessages``,
``fileLists``) or says there is nothing to compact. No model is called and the file is only read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.cli import CommandError
from pi_lsp.cli.sessions_cmd import open_session_file, print_json

if TYPE_CHECKING:
    from pi_lsp.compaction import CompactionPreparation


def _tokens(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {value}")
    return value


def register(sub: Any) -> None:
    """Add the ``compact`` command group."""
    parser = sub.add_parser("compact", help="plan compactions of pi session files")
    group = parser.add_subparsers(dest="compact_command", metavar="ACTION", required=True)
    plan = group.add_parser(
        "plan", help="what a compaction would summarize and keep (no model is called)"
    )
    plan.add_argument("file", type=Path)
    plan.add_argument("--leaf", help="entry id to compact at (default: the last entry)")
    plan.add_argument(
        "--keep-recent", type=_tokens, default=20000, metavar="N", help="keepRecentTokens (20000)"
    )
    plan.add_argument(
        "--reserve", type=_tokens, default=16384, metavar="N", help="reserveTokens (16384)"
    )
    plan.add_argument(
        "--estimator",
        choices=("tiktoken", "chars4"),
        default="tiktoken",
        help="token counting: tiktoken for the session's model (default) or pi's chars/4",
    )
    plan.add_argument("--json", action="store_true", help="print the preparation as JSON")
    plan.set_defaults(handler=_plan)


def _plan(args: argparse.Namespace) -> int:
    from pi_lsp.compaction import (
        AlreadyCompactedError,
        CompactionSettings,
        NothingToCompact,
        NothingToCompactError,
        TokenCounter,
        estimator_for,
        plan_compaction,
    )

    store = open_session_file(args.file)
    leaf = args.leaf or store.leaf_id
    if leaf is None or store.get(leaf) is None:
        raise CommandError(f"{args.file}: entry {leaf} not found")
    model = store.context(leaf).model
    estimator = estimator_for(args.estimator, model["modelId"] if model else None)
    settings = CompactionSettings(reserve_tokens=args.reserve, keep_recent_tokens=args.keep_recent)
    try:
        prep = plan_compaction(store.branch_path(leaf), settings, TokenCounter(estimator))
    except (AlreadyCompactedError, NothingToCompactError) as exc:
        reason = getattr(exc, "reason", "already compacted: the leaf is a compaction entry")
        if args.json:
            print_json(NothingToCompact(reason=reason).model_dump(by_alias=True))
        else:
            print(f"nothing to compact: {reason}")
        return 0
    if args.json:
        print_json(prep.to_plan().model_dump(by_alias=True))
    else:
        _print_plan(prep, estimator.name)
    return 0


def _print_plan(prep: CompactionPreparation, estimator: str) -> None:
    cut = prep.cut
    split = f", split turn from index {cut.turn_start_index}" if cut.is_split_turn else ""
    previous = prep.previous_summary
    kept = prep.previous_kept_count
    lists = prep.file_lists()
    lines = [
        f"first kept entry   {prep.first_kept_entry_id} (path index {cut.first_kept_index}{split})",
        f"tokens before      {prep.tokens_before} ({estimator})",
        f"previous summary   {f'{len(previous)} characters' if previous else 'none'}",
        f"to summarize       {len(prep.messages_to_summarize)} messages"
        + (f" ({kept} kept verbatim by the previous compaction)" if kept else ""),
        f"turn prefix        {len(prep.turn_prefix_messages)} messages",
        f"read files         {len(lists.read_files)}",
        *(f"  {path}" for path in lists.read_files),
        f"modified files     {len(lists.modified_files)}",
        *(f"  {path}" for path in lists.modified_files),
    ]
    print("\n".join(lines))

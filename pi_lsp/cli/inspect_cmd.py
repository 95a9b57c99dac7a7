"""``pi-lsp compact plan`` and ``pi-lsp context``: what the model would be given, inspected.

Neither command calls a model or writes a file. ``compact plan`` prints what a compaction of a
session would summarize and keep, with the corpus's field names (``firstKeptEntryId``,
``isSplitTurn``, ``tokensBefore``, ``previousSummary``, ``messagesToSummarize``,
``turnPrefixMessages``, ``fileLists``), or says there is nothing to compact. ``context files``
lists the context files that load for a directory in load order (``--json``: ``{"files":
[{"path", "source"}], "warnings": [...]}``); ``context prompt`` prints the full system prompt
with pi's default tools. Warnings go to stderr in text mode. Only light imports at module level
(no litellm, no pygls; the compaction package only when a plan is made).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.cli import CommandError
from pi_lsp.cli.sessions_cmd import open_session_file, print_json
from pi_lsp.prompt.files import ContextFileRef, ContextFilesReport
from pi_lsp.prompt.sources import PromptSources, load_prompt_sources
from pi_lsp.prompt.system_prompt import build_system_prompt

if TYPE_CHECKING:
    from pi_lsp.compaction import CompactionPreparation


def register(sub: Any) -> None:
    """Add the ``compact`` and ``context`` command groups."""
    _register_compact(sub)
    _register_context(sub)


def _tokens(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {value}")
    return value


def _register_compact(sub: Any) -> None:
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


# ``pi-lsp context``


def _register_context(sub: Any) -> None:
    parser = sub.add_parser(
        "context",
        help="project context files (AGENTS.md, ...) and the system prompt",
        description="Inspect the project context pi_lsp gives the model.",
    )
    parser.set_defaults(handler=lambda _args: _usage(parser))
    commands = parser.add_subparsers(dest="context_command", metavar="SUBCOMMAND")
    files = commands.add_parser("files", help="the context files that load, in order")
    _add_dir_options(files)
    files.add_argument("--json", action="store_true", help="print JSON instead of text")
    files.set_defaults(handler=run_files)
    prompt = commands.add_parser("prompt", help="the full system prompt")
    _add_dir_options(prompt)
    prompt.set_defaults(handler=run_prompt)


def run_files(args: argparse.Namespace) -> int:
    """Print the loaded context files (and warnings) for ``--cwd``."""
    context = _load(args)
    if args.json:
        report = ContextFilesReport(
            files=[ContextFileRef(path=file.path, source=file.source) for file in context.files],
            warnings=[str(warning) for warning in context.warnings],
        )
        print(report.model_dump_json(indent=2))
        return 0
    _print_warnings(context)
    for file in context.files:
        print(f"{file.source:<8}  {file.path}")
    if not context.files:
        print("No context files.")
    return 0


def run_prompt(args: argparse.Namespace) -> int:
    """Print the system prompt for ``--cwd`` with pi's default tools."""
    context = _load(args)
    _print_warnings(context)
    print(build_system_prompt(context))
    return 0


def _add_dir_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", metavar="DIR", help="working directory (default: the current one)")
    parser.add_argument(
        "--agent-dir",
        metavar="DIR",
        help="agent dir holding the global files (default: $PI_CODING_AGENT_DIR or ~/.pi/agent)",
    )


def _load(args: argparse.Namespace) -> PromptSources:
    cwd = os.path.expanduser(args.cwd) if args.cwd else os.getcwd()
    if not os.path.isdir(cwd):
        raise CommandError(f"not a directory: {cwd}")
    return load_prompt_sources(cwd, args.agent_dir)


def _print_warnings(context: PromptSources) -> None:
    for warning in context.warnings:
        print(f"warning: {warning}", file=sys.stderr)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2

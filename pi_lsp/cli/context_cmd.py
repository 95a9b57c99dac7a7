"""``pi-lsp context``: show which context files load for a directory, and the system prompt.

``context files`` lists the files in load order (``--json``: ``{"files": [{"path", "source"}],
"warnings": [...]}``); ``context prompt`` prints the full system prompt with pi's default
tools. Warnings go to stderr in text mode. Only light imports here (no litellm, no pygls).
"""

from __future__ import annotations

import argparse
import os
import sys

from pi_lsp.cli import CommandError
from pi_lsp.prompt.files import ContextFileRef, ContextFilesReport
from pi_lsp.prompt.sources import PromptSources, load_prompt_sources
from pi_lsp.prompt.system_prompt import build_system_prompt


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``context files`` and ``context prompt`` to the ``pi-lsp`` parser."""
    parser = subparsers.add_parser(
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

"""``pi-lsp sessions list|tree|context``: pi's session files from the terminal.

JSON output uses the corpus field names (``listInfo``, ``tree`` and ``context``), so scripts and
later checks can rely on it. Reading never modifies a session file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pi_lsp.cli import CommandError
from pi_lsp.session import EntryNotFoundError, SessionFileError, SessionStore
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import agent_dir
from pi_lsp.session.render import render_context, render_tree


def register(sub: Any) -> None:
    """Add the ``sessions`` command group."""
    parser = sub.add_parser("sessions", help="list, inspect and read pi session files")
    group = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)

    listing = group.add_parser("list", help="sessions of a working directory (pi's list metadata)")
    where = listing.add_mutually_exclusive_group()
    where.add_argument("--cwd", help="working directory (default: the current one)")
    where.add_argument("--all", action="store_true", help="sessions of every working directory")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_list)

    tree = group.add_parser("tree", help="the entry tree of a session file")
    tree.add_argument("file", type=Path)
    tree.add_argument("--json", action="store_true", help="print JSON ({roots, nodes})")
    tree.set_defaults(handler=_tree)

    context = group.add_parser("context", help="the model context at a leaf")
    context.add_argument("file", type=Path)
    context.add_argument("--leaf", help="entry id (default: the last entry, as pi opens it)")
    context.add_argument(
        "--json", action="store_true", help="print {messages, thinkingLevel, model}"
    )
    context.set_defaults(handler=_context)


def print_json(value: Any) -> None:
    """One JSON document on stdout (non-ASCII kept as is), newline-terminated."""
    json.dump(value, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


def open_session_file(path: Path) -> SessionStore:
    """Open a session file for reading, or a :class:`CommandError` saying why not.

    The reader's diagnostics (skipped lines and the like) go to stderr as warnings.
    """
    if not path.exists():
        raise CommandError(f"{path}: no such session file")
    try:
        store = SessionStore.open(path)
    except SessionFileError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from None
    if not store.persisted:
        raise CommandError(f"{path}: empty file, not a session yet")
    for diagnostic in store.diagnostics:
        print(f"pi-lsp: warning: {diagnostic}", file=sys.stderr)
    return store


def _list(args: argparse.Namespace) -> int:
    from pi_lsp.settings import load_settings

    cwd = os.path.abspath(args.cwd or os.getcwd())
    folder = load_settings(cwd)[0].sessionDir  # pi's sessionDir setting (problems: `run` says them)
    lister = SessionLister()
    infos = lister.list_all(agent_dir(), folder) if args.all else lister.list_cwd(cwd, None, folder)
    if args.json:
        print_json([info.model_dump() for info in infos])
        return 0
    if not infos:
        print("(no sessions)")
    for info in infos:
        title = info.name or info.firstMessage
        title = title if len(title) <= 60 else title[:59] + "…"
        print(f"{info.modified}  {info.messageCount:>5} msgs  {title}\n    {info.path}")
    return 0


def _tree(args: argparse.Namespace) -> int:
    store = open_session_file(args.file)
    tree = store.tree()
    if args.json:
        print_json(tree.to_json())
    else:
        sys.stdout.write(render_tree(tree, store.leaf_id))
    return 0


def _context(args: argparse.Namespace) -> int:
    store = open_session_file(args.file)
    try:
        context = store.context(args.leaf)
    except EntryNotFoundError as exc:
        raise CommandError(f"{args.file}: {exc}") from None
    if args.json:
        print_json(context.to_json())
    else:
        sys.stdout.write(render_context(context))
    return 0

"""``pi-lsp trust [DIR]``: save a project-trust decision in ``<agentDir>/trust.json`` (pi's file).

``--no`` saves "do not trust", ``--forget`` removes the saved decision, ``--show`` prints the
decision that applies to DIR (the nearest at or above it) without changing anything. DIR
defaults to the current directory. A running daemon reads the file again with the next
settings reload (``workspace/didChangeConfiguration``) or session it opens.
"""

from __future__ import annotations

import argparse
import os

from pi_lsp import project_trust
from pi_lsp.cli import CommandError
from pi_lsp.session.paths import agent_dir


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trust`` to the ``pi-lsp`` parser."""
    parser = subparsers.add_parser(
        "trust",
        help="trust a project: let its .pi/settings.json set permissions and the shell",
        description=(
            "Save whether a project is trusted (pi's <agentDir>/trust.json). Only a trusted "
            "project's .pi/settings.json may relax permissions, set shellPath, "
            "shellCommandPrefix or apiBase."
        ),
    )
    parser.add_argument("dir", nargs="?", default=os.getcwd(), help="the project folder")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--no", action="store_true", help="save: do not trust")
    choice.add_argument("--forget", action="store_true", help="remove the saved decision")
    choice.add_argument("--show", action="store_true", help="print the decision that applies")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Save or show the decision for ``args.dir``."""
    agent = agent_dir()
    try:
        if args.show:
            saved = project_trust.decision(args.dir, agent)
            word = {True: "trusted", False: "not trusted", None: "no decision saved"}[saved]
            print(f"{project_trust.canonical(args.dir)}: {word}")
            return 0
        if not os.path.isdir(args.dir):
            raise CommandError(f"not a directory: {args.dir}")
        value = None if args.forget else not args.no
        key = project_trust.save(args.dir, value, agent)
    except project_trust.TrustStoreError as exc:
        raise CommandError(str(exc)) from None
    done = {True: "trusted", False: "not trusted", None: "decision removed"}[value]
    print(f"{key}: {done} ({agent / project_trust.TRUST_FILE})")
    return 0

"""The ``pi-lsp`` command line: the LSP daemon, and sub-commands for sessions, context and turns.

Without a sub-command ``pi-lsp`` serves LSP (stdio by default, ``--tcp PORT`` on 127.0.0.1);
``pi-lsp --acp`` serves the Agent Client Protocol on stdio instead.

Each ``pi_lsp/cli/*_cmd.py`` module contributes sub-commands through ``register(subparsers)``;
the small ``trust`` command is defined here. Modules keep heavy imports (litellm, pygls, the
session package) inside their handlers so start-up stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from pi_lsp import __version__


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit status 1."""


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every ``*_cmd`` module's sub-commands."""
    parser = argparse.ArgumentParser(
        prog="pi-lsp",
        description="pi_lsp: an LSP daemon with pi's coding-agent memory.",
    )
    parser.add_argument("--version", action="version", version=f"pi-lsp {__version__}")
    parser.add_argument(
        "--stdio", action="store_true", help="serve LSP on stdin/stdout (the default)"
    )
    parser.add_argument("--tcp", type=int, metavar="PORT", help="serve LSP on 127.0.0.1:PORT")
    parser.add_argument(
        "--acp", action="store_true", help="serve the Agent Client Protocol on stdin/stdout"
    )
    parser.add_argument(
        "--log-level", default="warning", help="stderr log level (debug, info, warning, error)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    package = importlib.import_module("pi_lsp.cli")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.endswith("_cmd"):
            importlib.import_module(f"pi_lsp.cli.{info.name}").register(sub)
    _register_trust(sub)
    return parser


def _stdio_fast_path(argv: Sequence[str], flag: str = "--stdio") -> str | None:
    """The log level when ``argv`` only asks to serve stdio (``flag``: LSP or ACP), else None."""
    level = "warning"
    args = list(argv)
    if flag != "--stdio" and flag not in args:
        return None
    while args:
        arg = args.pop(0)
        if arg == flag:
            continue
        if arg == "--log-level" and args:
            level = args.pop(0)
        elif arg.startswith("--log-level="):
            level = arg.split("=", 1)[1]
        else:
            return None
    return level


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pi-lsp`` console script and ``python -m pi_lsp``."""
    args = sys.argv[1:] if argv is None else list(argv)
    acp_level = _stdio_fast_path(args, "--acp")
    if acp_level is not None:
        # Answer `initialize` before importing the ACP SDK (see pi_lsp/acp/server.py).
        from pi_lsp.acp.server import early_initialize as early_acp
        from pi_lsp.acp.server import serve_acp

        prefix, answered_id = early_acp(0, 1, __version__)
        serve_acp(acp_level, prefix=prefix, answered=answered_id)
        return 0
    level = _stdio_fast_path(args)
    if level is not None:
        # Answer `initialize` before importing pygls (see pi_lsp/protocol/framing.py).
        from pi_lsp.protocol.framing import early_initialize

        early = early_initialize(sys.stdin.buffer, sys.stdout.buffer, __version__)
        from pi_lsp.protocol.transport import serve_stdio

        serve_stdio(level, early=early)
        return 0
    parser = build_parser()
    parsed = parser.parse_args(args)
    handler = getattr(parsed, "handler", None)
    if handler is None:
        from pi_lsp.protocol.transport import serve_stdio, serve_tcp

        if parsed.acp:
            from pi_lsp.acp.server import serve_acp

            serve_acp(parsed.log_level)
        elif parsed.tcp is not None:
            return serve_tcp(parsed.tcp, parsed.log_level)
        else:
            serve_stdio(parsed.log_level)
        return 0
    try:
        result = handler(parsed)
    except CommandError as exc:
        print(f"pi-lsp: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    return int(result or 0)


def _register_trust(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trust``: save a project-trust decision in ``<agentDir>/trust.json`` (pi's file).

    ``--no`` saves "do not trust", ``--forget`` removes the saved decision, ``--show`` prints the
    decision that applies to DIR (the nearest at or above it) without changing anything. DIR
    defaults to the current directory. A running daemon reads the file again with the next
    settings reload (``workspace/didChangeConfiguration``) or session it opens.
    """
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
    parser.set_defaults(handler=_trust)


def _trust(args: argparse.Namespace) -> int:
    """Save or show the decision for ``args.dir``."""
    from pi_lsp import safety
    from pi_lsp.session.paths import agent_dir

    agent = agent_dir()
    try:
        if args.show:
            saved = safety.decision(args.dir, agent)
            word = {True: "trusted", False: "not trusted", None: "no decision saved"}[saved]
            print(f"{safety.canonical(args.dir)}: {word}")
            return 0
        if not os.path.isdir(args.dir):
            raise CommandError(f"not a directory: {args.dir}")
        value = None if args.forget else not args.no
        key = safety.save(args.dir, value, agent)
    except safety.TrustStoreError as exc:
        raise CommandError(str(exc)) from None
    done = {True: "trusted", False: "not trusted", None: "decision removed"}[value]
    print(f"{key}: {done} ({agent / safety.TRUST_FILE})")
    return 0

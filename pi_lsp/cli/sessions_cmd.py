"""``pi-lsp sessions list|tree|context`` and ``pi-lsp run``: pi's session files from the terminal.

JSON output uses the corpus field names (``listInfo``, ``tree`` and ``context``), so scripts and
later checks can rely on it. Reading never modifies a session file.

``pi-lsp run``: one prompt from the terminal, streamed, written where pi writes sessions.

Assistant text streams to stdout; tool activity, retries and compaction go to stderr, so
``pi-lsp run ... > answer.txt`` keeps only the answer. Ctrl-C aborts the turn (the partial reply
is stored as aborted) and exits 130. The turn holds the session's turn lock, the one the daemon
holds for its turns: while a daemon runs a turn on the file, ``run`` says so and exits 1.
litellm is imported only here, when a turn really runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.cli import CommandError
from pi_lsp.session import EntryNotFoundError, SessionFileError, SessionStore
from pi_lsp.session.context import render_context
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import agent_dir
from pi_lsp.session.tree import render_tree

if TYPE_CHECKING:
    from pi_lsp.agent.events import AgentEvent
    from pi_lsp.settings import Settings


def register(sub: Any) -> None:
    """Add the ``sessions`` command group and ``run``."""
    _register_sessions(sub)
    _register_run(sub)


def _register_sessions(sub: Any) -> None:
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


def _register_run(sub: Any) -> None:
    parser = sub.add_parser("run", help="run one prompt as an agent turn")
    parser.add_argument("prompt", help="what to ask")
    parser.add_argument("--cwd", help="working directory (default: the current one)")
    parser.add_argument("--model", help="provider/model (default: the session's, then settings)")
    parser.add_argument("--thinking", help="thinking level: off, minimal, low, medium, high, xhigh")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--session", type=Path, help="continue this session file")
    where.add_argument(
        "--continue", dest="resume", action="store_true", help="continue the most recent session"
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))


async def _main(args: argparse.Namespace) -> int:
    from pi_lsp.daemon.concurrency import SessionBusyError, TurnLock
    from pi_lsp.session.branching import continue_recent
    from pi_lsp.session.paths import session_dir
    from pi_lsp.settings import load_settings

    cwd = os.path.abspath(args.cwd or os.getcwd())
    settings, problems = load_settings(cwd)
    for problem in problems:
        print(f"pi-lsp: warning: {problem}", file=sys.stderr)
    try:
        if args.session is not None:
            store = SessionStore.open(args.session)
        elif args.resume:
            store = continue_recent(cwd, configured=settings.sessionDir)
        else:
            store = SessionStore.create(cwd, directory=session_dir(cwd, None, settings.sessionDir))
    except SessionFileError as exc:
        raise CommandError(str(exc)) from None
    # The daemon's turn lock: a daemon turn on this file and this one never interleave.
    lock = TurnLock.for_session(store.path, store.session_id, agent_dir())
    try:
        lock.acquire()
    except SessionBusyError as exc:
        store.close()
        raise CommandError(f"{store.path}: {exc}") from None
    try:
        store.refresh()  # what the other process wrote before it let go
        return await _turn(args, store, cwd, settings)
    finally:
        lock.release()
        store.close()


async def _turn(args: argparse.Namespace, store: SessionStore, cwd: str, settings: Settings) -> int:
    """Run the prompt on ``store`` (its turn lock held) and print it."""
    from pi_lsp.agent import AgentOptions, NoModelError
    from pi_lsp.agent.agent_session import create_agent_session

    try:
        agent = await create_agent_session(
            store, cwd, settings, AgentOptions(model=args.model, thinking_level=args.thinking)
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    printer = _Printer()
    agent.subscribe(printer)
    loop = asyncio.get_running_loop()
    aborted = False

    def on_interrupt() -> None:
        nonlocal aborted
        aborted = True
        agent.request_abort()  # the prompt below returns once the run has stopped

    loop.add_signal_handler(signal.SIGINT, on_interrupt)
    try:
        await agent.prompt(args.prompt)
    except NoModelError as exc:
        raise CommandError(str(exc)) from None
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    sys.stdout.write("\n" if printer.wrote_text else "")
    print(f"session: {store.path}", file=sys.stderr)
    if aborted:
        return 130
    return 1 if printer.failed else 0


class _Printer:
    """Turns agent events into terminal output."""

    def __init__(self) -> None:
        self.wrote_text = False
        self.failed: str | None = None

    def __call__(self, event: AgentEvent) -> None:
        if event["type"] == "message_update":
            sub = event["assistantMessageEvent"]
            if sub["type"] == "text_delta":
                sys.stdout.write(sub["delta"])
                sys.stdout.flush()
                self.wrote_text = True
        elif event["type"] == "message_end":
            message = event["message"]
            if message["role"] != "assistant":
                return
            if message["stopReason"] == "error":
                self.failed = str(message.get("errorMessage"))
                _err(f"error: {self.failed}")
            else:
                self.failed = None
        elif event["type"] == "tool_execution_start":
            _err(f"→ {event['toolName']} {_short(event['args'])}")
        elif event["type"] == "tool_execution_end":
            mark = "✗" if event["isError"] else "✓"
            blocks = event["result"]["content"]
            text = " ".join(b["text"] if b["type"] == "text" else "" for b in blocks)
            _err(f"{mark} {event['toolName']}: {_short(text)}")
        elif event["type"] == "auto_retry_start":
            delay = event["delayMs"] / 1000
            attempt = f"{event['attempt']}/{event['maxAttempts']}"
            _err(f"retry {attempt} in {delay:g}s: {event['errorMessage']}")
        elif event["type"] == "auto_compaction_start":
            _err(f"compacting ({event['reason']})…")
        elif event["type"] == "auto_compaction_end":
            _err(f"compaction: {event.get('errorMessage') or 'done'}")


def _short(value: Any, limit: int = 100) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)

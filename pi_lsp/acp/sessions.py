"""The sessions one ACP connection has open: finding, opening, replaying and their state.

ACP names sessions by id, pi's files by path: :func:`find_session_file` looks for pi's file name
``<timestamp>_<id>.jsonl`` in the cwd's folder, then for a file copied or renamed there (by its
header), then in other folders (by name). :class:`OpenSessions` opens them through the daemon's
:class:`~pi_lsp.daemon.workspaces.Workspaces` and keeps one :class:`AcpSession` each: the
daemon's :class:`~pi_lsp.daemon.live_session.LiveSession` owns the session; the state only
follows its events to know how the current ``session/prompt`` ended (the last assistant message,
or the turn's failure) and what the client was last told (title, cost, mode).
"""

from __future__ import annotations

import glob
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    Cost,
    ListSessionsResponse,
    SessionInfo,
    SessionInfoUpdate,
    Usage,
    UsageUpdate,
)

from pi_lsp.acp.client_side import ClientFileSystem, SessionBash
from pi_lsp.acp.controls import ASK, READ_ONLY, READ_ONLY_TOOLS
from pi_lsp.acp.updates import LiveUpdates, Update
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import UnknownSessionError, Workspaces
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import session_dir, sessions_root
from pi_lsp.tools import BashTool

logger = logging.getLogger(__name__)


def find_session_file(
    session_id: str, cwd: str, agent: Path, lister: SessionLister, configured: str | None = None
) -> Path:
    """The file of session ``session_id``; raises :class:`UnknownSessionError`.

    ``configured`` is the folder's ``sessionDir`` setting (pi 1.6.0 keeps sessions there).
    """
    if session_id and "/" not in session_id and not any(c in session_id for c in "*?[]"):
        folder = session_dir(cwd, agent, configured)
        named = sorted(glob.glob(str(folder / f"*_{session_id}.jsonl")))
        if named:
            return Path(named[0])
        for info in lister.list_cwd(cwd, agent, configured):
            if info.id == session_id:
                return Path(info.path)
        anywhere = sorted(glob.glob(str(sessions_root(agent) / "*" / f"*_{session_id}.jsonl")))
        if anywhere:
            return Path(anywhere[0])
    shown = session_id if len(session_id) <= 100 else session_id[:100] + "…"
    raise UnknownSessionError(f"Unknown session: {shown} (not in pi's sessions for {cwd})")


def _cost(message: Mapping[str, Any]) -> float:
    usage = message.get("usage")
    cost = usage.get("cost") if isinstance(usage, dict) else None
    total = cost.get("total") if isinstance(cost, dict) else None
    return float(total) if isinstance(total, int | float) else 0.0


@dataclass
class TurnOutcome:
    """How the running prompt is going."""

    assistant: list[JsonObject] = field(default_factory=list)
    """Assistant messages of this prompt, in order."""
    failure: str | None = None
    cancelled: bool = False

    def usage(self) -> Usage | None:
        """Tokens of this prompt's model calls."""
        if not self.assistant:
            return None
        totals = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        for message in self.assistant:
            usage = message.get("usage") or {}
            for key in totals:
                value = usage.get(key)
                totals[key] += value if isinstance(value, int) and value > 0 else 0
        return Usage(
            input_tokens=totals["input"],
            output_tokens=totals["output"],
            total_tokens=sum(totals.values()),
            cached_read_tokens=totals["cacheRead"],
            cached_write_tokens=totals["cacheWrite"],
        )


@dataclass
class AcpSession:
    """One session open through ACP."""

    live: LiveSession
    fs: ClientFileSystem
    updates: LiveUpdates
    roots: list[str]
    """Folders the session may write in without asking (its cwd and additional ones)."""
    turn: TurnOutcome = field(default_factory=TurnOutcome)
    title: str | None = None
    cost: float = 0.0
    """Cost of the assistant messages on the active path (the usage_update's ``cost``)."""
    mode: str = ASK
    """The session mode (:mod:`pi_lsp.acp.controls`): ``ask``, ``allow_edits`` or ``read_only``."""
    tools: tuple[str, ...] = ()
    """The session's active tools outside the read-only mode."""

    def __post_init__(self) -> None:
        self.title = self.live.store.session_name
        self.cost = sum(
            _cost(m) for m in self.live.store.context().messages if m.get("role") == "assistant"
        )
        self.tools = self.live.agent.config.active_tools
        self.fs.guard = self.guard

    def set_mode(self, mode: str) -> None:
        """Switch mode: the read-only one offers the model pi's read-only tools instead."""
        self.mode = mode
        agent = self.live.agent.config
        read_only = tuple(name for name in READ_ONLY_TOOLS if name in agent.tools)
        agent.active_tools = read_only if mode == READ_ONLY else self.tools

    def guard(self, what: str) -> str | None:
        """Why ``what`` (a write, a shell command) is refused now; None when it may happen."""
        if self.mode != READ_ONLY:
            return None
        return (
            f"The session is in read-only mode (the user's choice): {what} was refused and "
            "nothing was changed. Do not retry; ask the user to switch the mode if needed."
        )

    def follow(self, event: Mapping[str, Any]) -> list[Update]:
        """Updates for one daemon event; records what the turn outcome needs."""
        kind = event["type"]
        if kind == "message_end" and event["message"].get("role") == "assistant":
            self.turn.assistant.append(event["message"])
            self.cost += _cost(event["message"])
        elif kind == "error":
            self.turn.failure = str(event.get("message"))
        return self.updates(event)

    def usage_update(self) -> UsageUpdate | None:
        """Context tokens and window, and the path's cost (None without a model)."""
        usage = self.live.agent.context_usage()
        if usage is None:
            return None
        return UsageUpdate(
            session_update="usage_update",
            used=max(0, usage.tokens or 0),
            size=usage.context_window,
            cost=Cost(amount=round(self.cost, 6), currency="USD"),
        )

    def info_update(self) -> SessionInfoUpdate | None:
        """The session's name if it changed since the client was last told."""
        name = self.live.store.session_name
        if name == self.title:
            return None
        self.title = name
        return SessionInfoUpdate(session_update="session_info_update", title=name)


PAGE = 100
"""Sessions per ``session/list`` page."""


def absolute(cwd: str) -> str:
    """``cwd`` normalized; ACP requires absolute paths (invalid params otherwise)."""
    if not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": f"must be an absolute path, got {cwd!r}"})
    return os.path.normpath(cwd)


class OpenSessions:
    """This connection's open sessions, one :class:`AcpSession` each, and how they open."""

    def __init__(self, workspaces: Workspaces) -> None:
        self.workspaces = workspaces
        self._by_id: dict[str, AcpSession] = {}
        self.pending_fs: dict[str, ClientFileSystem] = {}
        """File systems the workspaces made for sessions being opened (taken by register)."""
        self.terminal_client: Client | None = None
        """The client's connection when it offers terminals (``bash`` then runs in them)."""

    def get(self, session_id: str) -> AcpSession | None:
        """The state of an open session."""
        return self._by_id.get(session_id)

    def require(self, session_id: str) -> AcpSession:
        """The state of an open session; raises :class:`UnknownSessionError`."""
        state = self._by_id.get(session_id)
        if state is None:
            shown = session_id if len(session_id) <= 100 else session_id[:100] + "…"
            raise UnknownSessionError(f"Unknown session: {shown} (create, load or resume it first)")
        return state

    def folder(self, cwd: str) -> str:
        """The workspace folder URI of ``cwd`` (added, with its settings, on first use)."""
        uri = Path(cwd).as_uri()
        if uri not in self.workspaces.folders:
            for problem in self.workspaces.add_folder(uri, cwd):
                logger.warning("settings: %s", problem)
            self._restore_roots()
        return uri

    def _restore_roots(self) -> None:
        """Each session writes freely only inside its own folders (adding a folder reset them)."""
        for state in self._by_id.values():
            state.live.set_roots(state.roots)

    def register(self, live: LiveSession, extra_roots: list[str] | None) -> AcpSession:
        """Keep a session the workspaces just opened."""
        fs = self.pending_fs.pop(live.id)
        state = AcpSession(
            live=live,
            fs=fs,
            updates=LiveUpdates(live.store.cwd, fs.diff_for),
            roots=[self.workspaces.workspace_of(live).cwd, *(extra_roots or [])],
        )
        self._by_id[live.id] = state
        self._restore_roots()
        tools = live.agent.config.tools
        bash = tools.get("bash")
        if isinstance(bash, BashTool):
            tools["bash"] = SessionBash(bash, self.terminal_client, live.id, state.guard)
        return state

    def _file_of(self, session_id: str, cwd: str, uri: str | None) -> Path:
        """The session's file, looked up where the folder's settings keep sessions."""
        configured = self.workspaces.folder(uri).settings.sessionDir
        return find_session_file(
            session_id, cwd, self.workspaces.agent_dir, self.workspaces.lister, configured
        )

    async def new(self, cwd: str, extra_roots: list[str] | None) -> AcpSession:
        """A new pi session in pi's folder for ``cwd``."""
        live = await self.workspaces.new_session(self.folder(absolute(cwd)))
        return self.register(live, extra_roots)

    async def open(self, session_id: str, cwd: str, extra_roots: list[str] | None) -> AcpSession:
        """An open session, or the session's file opened (no replay)."""
        state = self._by_id.get(session_id)
        if state is not None:
            return state
        cwd = absolute(cwd)
        uri = self.folder(cwd)
        path = self._file_of(session_id, cwd, uri)
        live = await self.workspaces.open_session(str(path), uri)
        return self._by_id.get(live.id) or self.register(live, extra_roots)

    async def load(
        self,
        session_id: str,
        cwd: str,
        extra_roots: list[str] | None,
        replay: Callable[[SessionStore], Awaitable[None]],
    ) -> AcpSession:
        """Open and replay a session, replaying first.

        A session not open yet is replayed straight from its file, before its agent (model
        data, token counter, tree view) is built: the first update leaves within milliseconds.
        """
        state = self._by_id.get(session_id)
        if state is not None:
            await replay(state.live.store)
            return state
        cwd = absolute(cwd)
        uri = self.folder(cwd)
        path = self._file_of(session_id, cwd, uri)
        store = SessionStore.open(path)
        try:
            if store.session_id != session_id:
                raise UnknownSessionError(f"Unknown session: {session_id[:100]}")
            await replay(store)
            live = await self.workspaces.adopt(store, uri)
        except BaseException:
            store.close()
            raise
        return self.register(live, extra_roots)

    async def fork(self, session_id: str, cwd: str, extra_roots: list[str] | None) -> AcpSession:
        """pi's fork: the active path copied into a new session file."""
        source = await self.open(session_id, cwd, extra_roots)
        leaf = source.live.store.leaf_id
        if leaf is None:
            return await self.new(cwd, extra_roots)
        live, _ = await self.workspaces.fork(session_id, leaf)
        return self.register(live, extra_roots)

    def page(self, cwd: str | None, cursor: str | None) -> ListSessionsResponse:
        """pi's session list for ``cwd`` (every folder without one), newest first."""
        lister, agent = self.workspaces.lister, self.workspaces.agent_dir
        if cwd:
            configured = self.workspaces.folder(self.folder(absolute(cwd))).settings.sessionDir
            infos = lister.list_cwd(absolute(cwd), agent, configured)
        else:
            infos = lister.list_all(agent, self.workspaces.folder(None).settings.sessionDir)
        start = 0
        if cursor:
            if not cursor.isdigit():
                raise RequestError.invalid_params({"cursor": "not a cursor from session/list"})
            start = int(cursor)
        sessions = [
            SessionInfo(
                session_id=info.id,
                cwd=info.cwd or (cwd or ""),
                title=(info.name or info.firstMessage)[:200],
                updated_at=info.modified,
                field_meta={"pi": {"path": info.path, "messageCount": info.messageCount}},
            )
            for info in infos[start : start + PAGE]
        ]
        more = start + PAGE < len(infos)
        return ListSessionsResponse(
            sessions=sessions, next_cursor=str(start + PAGE) if more else None
        )

    async def close(self, session_id: str) -> None:
        """Abort its turn and release the file."""
        self.require(session_id)
        self._by_id.pop(session_id, None)
        await self.workspaces.close(session_id)

    async def close_all(self) -> None:
        """Abort every turn and release every session (the client went away)."""
        self._by_id.clear()
        await self.workspaces.close_all()

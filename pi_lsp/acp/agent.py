"""The ACP agent: each ACP method mapped onto the daemon's workspaces and live sessions.

Handlers are short: check the params, call the shared layer, answer with SDK models. Domain
errors become JSON-RPC errors with the daemon's codes (:mod:`pi_lsp.daemon.errors`); anything
unexpected is logged and answered as an internal error. Nothing here keeps session state of its
own beyond :class:`~pi_lsp.acp.session_state.SessionState`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
    SetSessionConfigOptionResponse,
)

from pi_lsp import __version__
from pi_lsp.acp import config, extensions
from pi_lsp.acp.bootstrap import initialize_result
from pi_lsp.acp.client_fs import ClientFileSystem
from pi_lsp.acp.lookup import find_session_file
from pi_lsp.acp.outbox import Outbox
from pi_lsp.acp.permission import asker_for
from pi_lsp.acp.prompts import user_input
from pi_lsp.acp.session_state import SessionState, TurnOutcome
from pi_lsp.acp.terminal import TerminalBash
from pi_lsp.acp.updates import LiveUpdates, replay
from pi_lsp.agent.config import AgentBusyError
from pi_lsp.agent.models import THINKING_LEVELS
from pi_lsp.daemon.errors import bounded, error_code, not_unicode
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import Folder, UnknownSessionError, Workspaces, available_models
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.tools import BashTool, FileSystem

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])
PAGE = 100
"""Sessions per ``session/list`` page."""


def rpc_errors(handler: F) -> F:
    """Domain errors as JSON-RPC errors with the daemon's codes; the rest logged."""

    @functools.wraps(handler)
    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        bad = not_unicode(kwargs)
        if bad is not None:
            raise RequestError.invalid_params({"field": bad, "problem": "not valid Unicode"})
        try:
            return await handler(*args, **kwargs)
        except (RequestError, asyncio.CancelledError):
            raise
        except Exception as exc:
            code = error_code(exc)
            if code is None:
                logger.exception("%s failed", handler.__name__)
                raise RequestError.internal_error(
                    {"details": bounded(f"{type(exc).__name__}: {exc}")}
                ) from None
            raise RequestError(code, bounded(str(exc))) from None

    return wrapped  # type: ignore[return-value]


def _absolute(cwd: str) -> str:
    if not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": f"must be an absolute path, got {cwd!r}"})
    return os.path.normpath(cwd)


class PiAgent:
    """The ``acp.Agent`` implementation (one per connection)."""

    def __init__(self) -> None:
        self.client: Any = None
        self.capabilities = ClientCapabilities()
        self.outbox: Outbox | None = None
        self.sessions: dict[str, SessionState] = {}
        self._pending_fs: dict[str, ClientFileSystem] = {}
        self.workspaces = Workspaces(
            self._on_event, fs_factory=self._fs_for, asker_factory=lambda sid: asker_for(self, sid)
        )
        self._background: set[asyncio.Future[Any]] = set()

    # ----------------------------------------------------------------- wiring

    def on_connect(self, conn: Client) -> None:
        """Keep the connection: requests to the client go through it."""
        self.client = conn
        self.outbox = Outbox(conn)

    def _fs_for(self, workspace: Folder, session_id: str) -> FileSystem:
        fs = self.capabilities.fs
        files = ClientFileSystem(
            self.client,
            session_id,
            workspace.cwd,
            read_through_client=bool(fs and fs.read_text_file),
            write_through_client=bool(fs and fs.write_text_file),
        )
        self._pending_fs[session_id] = files
        return files

    def _on_event(self, session_id: str, seq: int, event: JsonObject) -> None:
        state = self.sessions.get(session_id)
        if state is None or self.outbox is None:
            return
        for update in state.follow(event):
            self.outbox.send(session_id, update)
        if event["type"] == "state_changed" or (
            event["type"] == "message_end" and event["message"].get("role") == "assistant"
        ):
            for extra in (state.usage_update(), state.info_update()):
                if extra is not None:
                    self.outbox.send(session_id, extra)

    def _state(self, session_id: str) -> SessionState:
        state = self.sessions.get(session_id)
        if state is None:
            shown = session_id if len(session_id) <= 100 else session_id[:100] + "…"
            raise UnknownSessionError(f"Unknown session: {shown} (create, load or resume it first)")
        return state

    def _folder(self, cwd: str) -> str:
        uri = Path(cwd).as_uri()
        if uri not in self.workspaces.folders:
            for problem in self.workspaces.add_folder(uri, cwd):
                logger.warning("settings: %s", problem)
            self._restore_roots()
        return uri

    def _restore_roots(self) -> None:
        """Each session writes freely only inside its own folders (adding a folder reset them)."""
        for state in self.sessions.values():
            gate = state.live.agent.config.permissions
            if gate is not None:
                gate.roots = state.roots

    def _register(self, live: LiveSession, extra_roots: list[str] | None) -> SessionState:
        fs = self._pending_fs.pop(live.id)
        state = SessionState(
            live=live,
            fs=fs,
            updates=LiveUpdates(live.store.cwd, fs.diff_for),
            roots=[self.workspaces.workspace_of(live).cwd, *(extra_roots or [])],
        )
        self.sessions[live.id] = state
        self._restore_roots()
        tools = live.agent.config.tools
        bash = tools.get("bash")
        if self.capabilities.terminal and isinstance(bash, BashTool):
            tools["bash"] = TerminalBash(bash, self.client, live.id)
        return state

    async def _options(self, live: LiveSession) -> list[Any]:
        settings = self.workspaces.workspace_of(live).settings
        return config.config_options(live, await available_models(settings))

    def _mcp_notice(self, servers: list[Any] | None) -> dict[str, Any] | None:
        """MCP servers the client asked for are not connected: say so in ``_meta`` and the log."""
        if not servers:
            return None
        names = [str(getattr(s, "name", "?")) for s in servers]
        logger.warning("MCP servers are not supported; not connected: %s", ", ".join(names))
        return {
            "pi": {
                "unsupportedMcpServers": names,
                "warning": "pi-lsp does not connect MCP servers; pi's own tools are available",
            }
        }

    # ----------------------------------------------------------------- lifecycle

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """Protocol 1; the client's capabilities decide fs delegation."""
        self.capabilities = client_capabilities or ClientCapabilities()
        self.workspaces.reload_settings()
        if os.environ.get("PI_LSP_PREWARM", "1") != "0":
            task = asyncio.ensure_future(_prewarm())
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return InitializeResponse.model_validate(initialize_result(__version__))

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """No authentication: providers' keys come from the environment."""
        raise RequestError.invalid_params({"methodId": f"no authentication method {method_id!r}"})

    # ----------------------------------------------------------------- sessions

    @rpc_errors
    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        """A new pi session in pi's folder for ``cwd`` (written with the first reply)."""
        live = await self.workspaces.new_session(self._folder(_absolute(cwd)))
        self._register(live, additional_directories)
        meta = self._mcp_notice(mcp_servers)
        return NewSessionResponse(
            session_id=live.id, config_options=await self._options(live), field_meta=meta
        )

    async def _open(self, session_id: str, cwd: str, additional: list[str] | None) -> SessionState:
        if session_id in self.sessions:
            return self.sessions[session_id]
        cwd = _absolute(cwd)
        uri = self._folder(cwd)
        path = find_session_file(session_id, cwd, self.workspaces.agent_dir, self.workspaces.lister)
        live = await self.workspaces.open_session(str(path), uri)
        if live.id in self.sessions:  # the same file under another id cannot happen; be safe
            return self.sessions[live.id]
        return self._register(live, additional)

    @rpc_errors
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """Replay the session's context as updates, then answer.

        A session not open yet is replayed straight from its file, before its agent (model
        data, token counter, tree view) is built: the first update leaves within milliseconds.
        """
        state = self.sessions.get(session_id)
        if state is None:
            cwd = _absolute(cwd)
            uri = self._folder(cwd)
            path = find_session_file(
                session_id, cwd, self.workspaces.agent_dir, self.workspaces.lister
            )
            store = SessionStore.open(path)
            try:
                if store.session_id != session_id:
                    raise UnknownSessionError(f"Unknown session: {session_id[:100]}")
                await self._replay(store)
                live = await self.workspaces.adopt(store, uri)
            except BaseException:
                store.close()
                raise
            state = self._register(live, additional_directories)
        else:
            await self._replay(state.live.store)
        live = state.live
        usage = state.usage_update()
        if usage is not None:
            await self.client.session_update(session_id=live.id, update=usage)
        meta = self._mcp_notice(mcp_servers)
        return LoadSessionResponse(config_options=await self._options(live), field_meta=meta)

    async def _replay(self, store: SessionStore) -> None:
        if self.outbox is not None:
            await self.outbox.drain()
        context = store.context()
        for update in replay(context.messages, context.entry_ids, store.cwd):
            await self.client.session_update(session_id=store.session_id, update=update)

    @rpc_errors
    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """Open a session without replaying it."""
        state = await self._open(session_id, cwd, additional_directories)
        meta = self._mcp_notice(mcp_servers)
        return ResumeSessionResponse(
            config_options=await self._options(state.live), field_meta=meta
        )

    @rpc_errors
    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """pi's session list for ``cwd`` (every folder without one), newest first."""
        lister, agent = self.workspaces.lister, self.workspaces.agent_dir
        infos = lister.list_cwd(_absolute(cwd), agent) if cwd else lister.list_all(agent)
        start = 0
        if cursor:
            if not cursor.isdigit():
                raise RequestError.invalid_params({"cursor": "not a cursor from session/list"})
            start = int(cursor)
        page = infos[start : start + PAGE]
        sessions = [
            SessionInfo(
                session_id=info.id,
                cwd=info.cwd or (cwd or ""),
                title=(info.name or info.firstMessage)[:200],
                updated_at=info.modified,
                field_meta={"pi": {"path": info.path, "messageCount": info.messageCount}},
            )
            for info in page
        ]
        more = start + PAGE < len(infos)
        return ListSessionsResponse(
            sessions=sessions, next_cursor=str(start + PAGE) if more else None
        )

    @rpc_errors
    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """Abort its turn and release the file."""
        self._state(session_id)
        self.sessions.pop(session_id, None)
        await self.workspaces.close(session_id)
        return CloseSessionResponse()

    @rpc_errors
    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """pi's fork: the active path copied into a new session file."""
        source = await self._open(session_id, cwd, additional_directories)
        leaf = source.live.store.leaf_id
        if leaf is None:
            live = await self.workspaces.new_session(self._folder(_absolute(cwd)))
        else:
            live, _ = await self.workspaces.fork(session_id, leaf)
        self._register(live, additional_directories)
        meta = self._mcp_notice(mcp_servers)
        return ForkSessionResponse(
            session_id=live.id, config_options=await self._options(live), field_meta=meta
        )

    # ----------------------------------------------------------------- turns

    @rpc_errors
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Run a turn to its end, streaming it; answers with the stop reason."""
        state = self._state(session_id)
        live = state.live
        if live.agent.is_streaming:
            raise AgentBusyError(
                "The agent is already running a turn in this session: wait for its answer, "
                "send session/cancel first, or steer it with _pi/steer"
            )
        given = user_input(prompt)
        state.turn = TurnOutcome()
        started = await live.prompt(given.text, given.images)
        await live.turn_finished()
        assert self.outbox is not None
        await self.outbox.drain()
        turn = state.turn
        meta = {"pi": {"userEntryId": started.get("userEntryId"), "leafId": live.store.leaf_id}}
        last = turn.assistant[-1] if turn.assistant else None
        reason = last.get("stopReason") if last else None
        if turn.cancelled or reason == "aborted":
            stop = "cancelled"
        elif reason == "length":
            stop = "max_tokens"
        elif reason == "error":
            message = str(last.get("errorMessage") if last else "")
            if "content_filter" in message:
                stop = "refusal"
            else:
                raise RequestError(-32603, bounded(f"The model call failed: {message}"))
        elif turn.failure is not None:
            raise RequestError(-32603, bounded(turn.failure))
        else:
            stop = "end_turn"
        return PromptResponse(stop_reason=stop, usage=turn.usage(), field_meta=meta)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Abort the running turn (its prompt answers ``cancelled``)."""
        state = self.sessions.get(session_id)
        if state is None:
            logger.warning("session/cancel for an unknown session: %s", session_id[:100])
            return
        if state.live.agent.is_streaming:
            state.turn.cancelled = True
            await state.live.abort()

    @rpc_errors
    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """Switch the model or the thinking level."""
        state = self._state(session_id)
        if config_id == config.MODEL:
            await self.workspaces.set_model(session_id, str(value))
        elif config_id == config.THINKING:
            level = next((lvl for lvl in THINKING_LEVELS if lvl == value), None)
            if level is None:
                raise RequestError.invalid_params(
                    {"value": f"not a thinking level: {value!r} ({', '.join(THINKING_LEVELS)})"}
                )
            state.live.set_thinking_level(level)
        else:
            raise RequestError.invalid_params({"configId": f"unknown option {config_id!r}"})
        return SetSessionConfigOptionResponse(config_options=await self._options(state.live))

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        """pi-lsp offers no modes (permissions are settings; see docs/acp.md)."""
        raise RequestError.invalid_params({"modeId": "pi-lsp offers no session modes"})

    async def send_config_update(self, state: SessionState) -> None:
        """Tell the client the options changed (after a move in the tree, say)."""
        if self.outbox is not None:
            update = ConfigOptionUpdate(
                session_update="config_option_update",
                config_options=await self._options(state.live),
            )
            self.outbox.send(state.live.id, update)
            await self.outbox.drain()

    # ----------------------------------------------------------------- extensions

    @rpc_errors
    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """``_pi/tree``, ``_pi/branch``, ``_pi/label``, ``_pi/compact``, ``_pi/steer``."""
        return await extensions.call(self, method, params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """No extension notifications: logged and ignored, as JSON-RPC asks."""
        logger.info("ignored notification _%s", method[:100])

    async def shutdown(self) -> None:
        """Abort every turn and release every session (the client went away)."""
        self.sessions.clear()
        await self.workspaces.close_all()


async def _prewarm() -> None:
    """Import litellm in a thread now, so the first prompt does not wait for it."""
    from pi_lsp.agent.llm import load_litellm

    try:
        await load_litellm()
    except Exception:
        logger.exception("importing litellm failed")

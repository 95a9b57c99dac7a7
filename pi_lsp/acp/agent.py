"""The ACP agent: each ACP method mapped onto the daemon's workspaces and live sessions.

Handlers are short: check the params, call the shared layer, answer with SDK models. Domain
errors become JSON-RPC errors with the daemon's codes (:mod:`pi_lsp.daemon.errors`); anything
unexpected is logged and answered as an internal error. Nothing here keeps session state of its
own beyond :class:`~pi_lsp.acp.sessions.AcpSession`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
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
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from pi_lsp import __version__
from pi_lsp.acp import controls
from pi_lsp.acp.client_side import ClientFileSystem, asker_for
from pi_lsp.acp.content import PromptBlock, user_input
from pi_lsp.acp.server import initialize_result
from pi_lsp.acp.sessions import AcpSession, OpenSessions, TurnOutcome
from pi_lsp.acp.updates import Outbox, replay
from pi_lsp.agent import AgentBusyError, llm
from pi_lsp.agent.models import THINKING_LEVELS
from pi_lsp.daemon.concurrency import spawn
from pi_lsp.daemon.errors import bounded, error_code, not_unicode
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import Folder, Workspaces, available_models
from pi_lsp.session import SessionStore
from pi_lsp.tools import FileSystem

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


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


class PiAgent:
    """The ``acp.Agent`` implementation (one per connection)."""

    def __init__(self) -> None:
        self.client: Client
        """The connection to the client (set by :meth:`on_connect`, before any request)."""
        self.capabilities = ClientCapabilities()
        self.outbox: Outbox | None = None
        self.workspaces = Workspaces(
            self._on_event, fs_factory=self._fs_for, asker_factory=lambda sid: asker_for(self, sid)
        )
        self.sessions = OpenSessions(self.workspaces)
        self._background: set[asyncio.Future[Any]] = set()
        self._listing_models: set[str] = set()
        """Sessions waiting for litellm's model list (see :meth:`_options`)."""

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
        self.sessions.pending_fs[session_id] = files
        return files

    def _on_event(self, session_id: str, seq: int, event: Mapping[str, Any]) -> None:
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

    async def _options(self, live: LiveSession) -> list[controls.ConfigOption]:
        """The session's config options, without waiting for litellm's model list.

        Until litellm is imported (3 s idle, tens of seconds on a loaded machine) the models are
        the configured ones; a background task then waits for the import and sends a
        ``config_option_update`` if the list grew.
        """
        settings = self.workspaces.workspace_of(live).settings
        if llm.is_loaded():
            return controls.config_options(live, await available_models(settings))
        known = await available_models(settings, with_litellm=False)
        if live.id not in self._listing_models:
            self._listing_models.add(live.id)
            self._in_background(
                self._full_model_list(live, [m["id"] for m in known]), "listing litellm's models"
            )
        return controls.config_options(live, known)

    async def _full_model_list(self, live: LiveSession, known: list[str]) -> None:
        try:
            models = await available_models(self.workspaces.workspace_of(live).settings)
        finally:
            self._listing_models.discard(live.id)
        state = self.sessions.get(live.id)
        if state is not None and state.live is live and [m["id"] for m in models] != known:
            await self.send_config_update(state)

    def _in_background(self, work: Awaitable[Any], what: str) -> None:
        """Run ``work`` as a task the agent keeps until it ends (its failure is logged)."""
        task = spawn(work, what)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _opened(self, state: AcpSession, mcp_servers: list[Any] | None) -> dict[str, Any]:
        """What every answer that opens a session carries: options, modes, the MCP notice."""
        return {
            "config_options": await self._options(state.live),
            "modes": controls.mode_state(state.mode),
            "field_meta": self._mcp_notice(mcp_servers),
        }

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
        """Protocol 1; the client's capabilities decide fs delegation and terminals."""
        self.capabilities = client_capabilities or ClientCapabilities()
        self.sessions.terminal_client = self.client if self.capabilities.terminal else None
        self.workspaces.reload_settings()
        if os.environ.get("PI_LSP_PREWARM", "1") != "0":
            self._in_background(llm.load_litellm(), "importing litellm")
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
        state = await self.sessions.new(cwd, additional_directories)
        return NewSessionResponse(
            session_id=state.live.id, **await self._opened(state, mcp_servers)
        )

    @rpc_errors
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """Replay the session's context as updates (before its agent is built), then answer."""
        state = await self.sessions.load(session_id, cwd, additional_directories, self.send_replay)
        usage = state.usage_update()
        if usage is not None:
            await self.client.session_update(session_id=state.live.id, update=usage)
        return LoadSessionResponse(**await self._opened(state, mcp_servers))

    async def send_replay(self, store: SessionStore) -> None:
        """The session's context as updates (after every live update queued before it)."""
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
        state = await self.sessions.open(session_id, cwd, additional_directories)
        return ResumeSessionResponse(**await self._opened(state, mcp_servers))

    @rpc_errors
    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """pi's session list for ``cwd`` (every folder without one), newest first."""
        return self.sessions.page(cwd, cursor)

    @rpc_errors
    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """Abort its turn and release the file."""
        await self.sessions.close(session_id)
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
        state = await self.sessions.fork(session_id, cwd, additional_directories)
        return ForkSessionResponse(
            session_id=state.live.id, **await self._opened(state, mcp_servers)
        )

    # ----------------------------------------------------------------- turns

    @rpc_errors
    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        """Run a turn to its end, streaming it; answers with the stop reason."""
        state = self.sessions.require(session_id)
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
        state = self.sessions.require(session_id)
        if config_id == controls.MODEL:
            await self.workspaces.set_model(session_id, str(value))
        elif config_id == controls.THINKING:
            level = next((lvl for lvl in THINKING_LEVELS if lvl == value), None)
            if level is None:
                raise RequestError.invalid_params(
                    {"value": f"not a thinking level: {value!r} ({', '.join(THINKING_LEVELS)})"}
                )
            state.live.set_thinking_level(level)
        else:
            raise RequestError.invalid_params({"configId": f"unknown option {config_id!r}"})
        return SetSessionConfigOptionResponse(config_options=await self._options(state.live))

    @rpc_errors
    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """Ask, allow edits or read-only (:mod:`pi_lsp.acp.controls`); a mode update follows."""
        state = self.sessions.require(session_id)
        if not controls.is_mode(mode_id):
            known = ", ".join(mode.id for mode in controls.MODES)
            raise RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r} ({known})"})
        state.set_mode(mode_id)
        if self.outbox is not None:
            self.outbox.send(session_id, controls.mode_update(mode_id))
            await self.outbox.drain()
        return SetSessionModeResponse()

    async def send_config_update(self, state: AcpSession) -> None:
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
        return await controls.call_extension(self, method, params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """No extension notifications: logged and ignored, as JSON-RPC asks."""
        logger.info("ignored notification _%s", method[:100])

    async def shutdown(self) -> None:
        """Abort every turn and release every session (the client went away)."""
        await self.sessions.close_all()

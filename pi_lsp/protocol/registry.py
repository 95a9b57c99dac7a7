"""Wiring: the server built, its handlers registered, params checked, domain errors mapped to codes.

:func:`create_server` builds the daemon's server and its one :class:`Workspaces`, whose events,
edits and permission questions go to that server's editor. Every ``pi/…`` method and LSP
lifecycle notification is registered on it.

A handler exception never stops the daemon: known domain errors become JSON-RPC errors with a
code and a message saying what to do; anything else is logged with its traceback and answered as
an internal error naming the exception. The codes and the checks are protocol-free
(:mod:`pi_lsp.daemon.errors`, shared with the ACP face); this module makes pygls exceptions of
them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence

from lsprotocol import types as T
from pydantic import BaseModel, ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from pi_lsp.agent.permissions import Asker, PermissionRequest
from pi_lsp.daemon.concurrency import spawn
from pi_lsp.daemon.errors import bounded, error_code, not_unicode
from pi_lsp.daemon.views import WireEvent
from pi_lsp.daemon.workspaces import Folder, Workspaces
from pi_lsp.edits.bridge import EditMode
from pi_lsp.edits.editor_fs import EditorFileSystem
from pi_lsp.literals import PermissionDecision
from pi_lsp.protocol.editor_bridge import PyglsEditorBridge
from pi_lsp.protocol.language_server import PiLanguageServer, use_lsp_line_breaks
from pi_lsp.protocol.methods import METHODS, Answer, Method
from pi_lsp.protocol.payloads import EventNotification, PermissionRequestParams
from pi_lsp.session.jsonl import JsonObject, dumps
from pi_lsp.tools import FileSystem

logger = logging.getLogger(__name__)

RequestHandler = Callable[[PiLanguageServer, JsonObject | None], Awaitable[Answer]]
"""What pygls calls for a ``pi/…`` request: the server (as ``ls``) and the raw params."""


def create_server() -> PiLanguageServer:
    """A fully wired daemon (not yet serving)."""
    server = PiLanguageServer(_workspaces)
    register(server)
    return server


def _workspaces(server: PiLanguageServer) -> Workspaces:
    """The daemon's one :class:`Workspaces`, reporting to ``server``'s editor.

    Events, edits and permission questions all go to that editor.
    """
    protocol = server.protocol

    def sink(session_id: str, seq: int, event: WireEvent) -> None:
        notification: EventNotification = {"sessionId": session_id, "seq": seq, "event": event}
        protocol.notify_raw("pi/event", dumps(notification))

    def edit_mode(path: str) -> EditMode:
        """The ``editMode`` of the folder holding ``path`` (read at every write)."""
        return server.workspaces.folder_of_path(path).settings.editMode

    # One editor file system per connection: it tracks edits in flight and per-file write locks
    # across every session of the editor.
    editor_fs = EditorFileSystem(PyglsEditorBridge(server), edit_mode=edit_mode)

    def file_system(_workspace: Folder, _session_id: str) -> FileSystem:
        return editor_fs

    return Workspaces(
        sink, fs_factory=file_system, asker_factory=lambda sid: permission_asker(server, sid)
    )


def register(server: PiLanguageServer) -> None:
    """Register every handler on ``server``."""
    for method in METHODS:
        server.feature(method.name)(_handler(method))
    _register_lifecycle(server)


def _handler(method: Method[BaseModel]) -> RequestHandler:
    async def handle(ls: PiLanguageServer, params: JsonObject | None) -> Answer:
        try:
            parsed = method.params.model_validate(params if params is not None else {})
        except ValidationError as exc:
            raise invalid_params(exc) from None
        field = not_unicode(parsed.model_dump())
        if field is not None:
            raise JsonRpcInvalidParams(
                f"Invalid params: {field}: not valid Unicode text (a lone UTF-16 surrogate)"
            )
        try:
            return await method.handler(ls, parsed)
        except JsonRpcException:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = as_rpc_error(exc)
            if error is not None:
                raise error from None
            logger.exception("%s failed", method.name)
            raise JsonRpcInternalError(
                bounded(f"{method.name} failed: {type(exc).__name__}: {exc}")
            ) from None

    handle.__name__ = method.name.replace("/", "_")
    return handle


def _folder_pairs(folders: Sequence[T.WorkspaceFolder] | None) -> list[tuple[str, str]]:
    from pygls.uris import to_fs_path

    return [(f.uri, to_fs_path(f.uri) or f.uri) for f in folders or []]


def _settings_of(value: object) -> JsonObject:
    """The ``pi`` section of an editor's settings object (or the object itself)."""
    if not isinstance(value, dict):
        return {}
    section = value.get("pi", value)
    return section if isinstance(section, dict) else {}


def _register_lifecycle(server: PiLanguageServer) -> None:
    @server.feature(T.INITIALIZE)
    def on_initialize(ls: PiLanguageServer, params: T.InitializeParams) -> None:
        caps = params.capabilities
        ls.shows_progress = bool(caps.window and caps.window.work_done_progress)
        folders = _folder_pairs(params.workspace_folders)
        if not folders and params.root_uri:
            folders = _folder_pairs([T.WorkspaceFolder(uri=params.root_uri, name="root")])
        ls.workspaces.overrides = _settings_of(params.initialization_options)
        _report(ls, ls.workspaces.set_folders(folders))
        use_lsp_line_breaks(ls.workspace)  # pygls would split lines at \f and U+2028 too

    @server.feature(T.INITIALIZED)
    def on_initialized(ls: PiLanguageServer, params: T.InitializedParams) -> None:
        if os.environ.get("PI_LSP_PREWARM", "1") != "0":
            spawn(_prewarm(), "importing litellm")

    @server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(ls: PiLanguageServer, params: T.DidChangeConfigurationParams) -> None:
        _report(ls, ls.workspaces.configure(_settings_of(params.settings)))

    @server.feature(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def on_folders(ls: PiLanguageServer, params: T.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            ls.workspaces.remove_folder(folder.uri)
        for uri, path in _folder_pairs(params.event.added):
            _report(ls, ls.workspaces.add_folder(uri, path))

    @server.feature(T.SHUTDOWN)
    async def on_shutdown(ls: PiLanguageServer, *args: object) -> None:
        await ls.workspaces.close_all()

    @server.feature(T.EXIT)
    async def on_exit(ls: PiLanguageServer, *args: object) -> None:
        await ls.workspaces.close_all()
        sys.stderr.flush()
        os._exit(0 if ls.protocol._shutdown else 1)


def _report(ls: PiLanguageServer, problems: list[str]) -> None:
    """Bad settings: one message in the editor, every detail in its log."""
    for problem in problems:
        logger.warning("settings: %s", problem)
        ls.window_log_message(T.LogMessageParams(type=T.MessageType.Warning, message=problem))
    if problems:
        text = f"pi_lsp: {len(problems)} setting(s) ignored, defaults used: {problems[0]}"
        ls.window_show_message(T.ShowMessageParams(type=T.MessageType.Warning, message=text))


async def _prewarm() -> None:
    """Import litellm in a thread now, so the first prompt does not wait ~3 s for it.

    Then the model list's cache file is written if missing (:mod:`pi_lsp.agent.model_choice`).
    """
    from pi_lsp.agent.llm import load_litellm
    from pi_lsp.agent.model_choice import chat_models

    await load_litellm()
    await chat_models()


def permission_asker(server: PiLanguageServer, session_id: str) -> Asker:
    """An asker that sends ``pi/requestPermission`` to the editor."""

    async def ask(request: PermissionRequest) -> PermissionDecision:
        """Ask the editor with ``pi/requestPermission``.

        If the question is cancelled (abort, close, shutdown, timeout) the editor is told with
        ``$/cancelRequest`` for that request, so it can withdraw its prompt.
        """
        params: PermissionRequestParams = {
            "sessionId": session_id,
            "kind": request.kind,
            "toolName": request.tool_name,
            "toolCallId": request.tool_call_id,
            "detail": request.detail,
            "cwd": request.cwd,
        }
        if request.reason is not None:
            params["reason"] = request.reason
        protocol = server.protocol
        msg_id = str(uuid.uuid4())
        try:
            answer: object = await protocol.send_request_async(
                "pi/requestPermission", params, msg_id
            )
        except asyncio.CancelledError:
            protocol.notify(T.CANCEL_REQUEST, T.CancelParams(id=msg_id))
            raise
        decision = (
            answer.get("decision")
            if isinstance(answer, dict)
            else getattr(answer, "decision", None)
        )
        if decision == "allowOnce":
            return "allowOnce"
        if decision == "allowSession":
            return "allowSession"
        return "deny"

    return ask


def invalid_params(exc: ValidationError) -> JsonRpcInvalidParams:
    """``-32602`` naming every bad field."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {error['msg']}"
        for error in exc.errors()
    ]
    return JsonRpcInvalidParams(bounded("Invalid params: " + "; ".join(problems)))


def as_rpc_error(exc: BaseException) -> JsonRpcException | None:
    """The JSON-RPC error for a known domain error, None for anything unexpected."""
    code = error_code(exc)
    return None if code is None else JsonRpcException(bounded(str(exc)), code)

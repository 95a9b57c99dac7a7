"""Every pi/… request and its handler, and $/progress for the long ones.

Every ``pi/…`` request: its name, params model, result model and handler (the one map).

Handlers are short: validate params, call :class:`pi_lsp.daemon.workspaces.Workspaces` or a
:class:`pi_lsp.daemon.live_session.LiveSession`, return JSON. Domain errors become JSON-RPC
errors with the codes in :mod:`pi_lsp.daemon.errors` (mapped in :mod:`pi_lsp.protocol.registry`).

Long requests with ``$/progress``: begin, end, and cancellation from the editor's button.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from lsprotocol import types as T
from pydantic import BaseModel
from pygls.progress import Progress

from pi_lsp.compaction.models import CompactionResult
from pi_lsp.daemon import views
from pi_lsp.daemon.concurrency import spawn
from pi_lsp.daemon.workspaces import available_models
from pi_lsp.protocol import payloads as p
from pi_lsp.protocol.language_server import PiLanguageServer, RawJson
from pi_lsp.session.jsonl import JsonObject

Answer = RawJson | JsonObject
"""A handler's result: JSON already encoded, or a JSON object (both shaped as ``result``)."""
P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Method(Generic[P]):
    """One ``pi/…`` request: its params model, result model and handler."""

    name: str
    params: type[P]
    result: type[BaseModel]
    handler: Callable[[PiLanguageServer, P], Awaitable[Answer]]
    summary: str

    def erased(self) -> Method[BaseModel]:
        """The same method typed for a table of all (the handler gets ``params``' model)."""
        return cast("Method[BaseModel]", self)


def _images(params: p.PromptParams | p.QueueParams) -> list[JsonObject]:
    return [{"type": "image", "data": i.data, "mimeType": i.mimeType} for i in params.images]


async def _list_sessions(server: PiLanguageServer, params: p.FolderParams) -> Answer:
    infos = await server.workspaces.list_sessions(params.folder)
    return RawJson.of({"sessions": [i.model_dump() for i in infos]})


async def _new_session(server: PiLanguageServer, params: p.FolderParams) -> Answer:
    return RawJson.of((await server.workspaces.new_session(params.folder)).state())


async def _open_session(server: PiLanguageServer, params: p.OpenParams) -> Answer:
    return RawJson.of((await server.workspaces.open_session(params.path, params.folder)).state())


async def _close_session(server: PiLanguageServer, params: p.SessionParams) -> Answer:
    server.workspaces.get(params.sessionId)
    await server.workspaces.close(params.sessionId)
    return {}


async def _state(server: PiLanguageServer, params: p.SessionParams) -> Answer:
    return RawJson.of(server.workspaces.get(params.sessionId).state())


async def _rename(server: PiLanguageServer, params: p.RenameParams) -> Answer:
    return RawJson.of(server.workspaces.get(params.sessionId).rename(params.name))


async def _tree(server: PiLanguageServer, params: p.SessionParams) -> Answer:
    return RawJson(server.workspaces.get(params.sessionId).tree_json())


async def _messages(server: PiLanguageServer, params: p.SessionParams) -> Answer:
    return RawJson(server.workspaces.get(params.sessionId).messages_json())


async def _prompt(server: PiLanguageServer, params: p.PromptParams) -> Answer:
    live = server.workspaces.get(params.sessionId)
    return await live.prompt(params.text, _images(params), params.streamingBehavior)


async def _steer(server: PiLanguageServer, params: p.QueueParams) -> Answer:
    return server.workspaces.get(params.sessionId).queue(params.text, _images(params), "steer")


async def _follow_up(server: PiLanguageServer, params: p.QueueParams) -> Answer:
    return server.workspaces.get(params.sessionId).queue(params.text, _images(params), "followUp")


async def _abort(server: PiLanguageServer, params: p.SessionParams) -> Answer:
    return await server.workspaces.get(params.sessionId).abort()


async def _branch(server: PiLanguageServer, params: p.BranchParams) -> Answer:
    live = server.workspaces.get(params.sessionId)
    return await live.navigate(
        params.entryId, summarize=params.summarize, focus=params.focus, label=params.label
    )


async def _fork(server: PiLanguageServer, params: p.EntryParams) -> Answer:
    live, text = await server.workspaces.fork(params.sessionId, params.entryId)
    return RawJson.of({"session": live.state(), "editorText": text})


async def _label(server: PiLanguageServer, params: p.LabelParams) -> Answer:
    return server.workspaces.get(params.sessionId).label(params.entryId, params.label)


async def _compact(server: PiLanguageServer, params: p.CompactParams) -> Answer:
    live = server.workspaces.get(params.sessionId)
    result: CompactionResult = await with_progress(
        server,
        "Compacting the session",
        live.compact(params.focus),
        live.request_abort,
    )
    return RawJson.of(result)


async def _models(server: PiLanguageServer, params: p.FolderParams) -> Answer:
    workspace = server.workspaces.folder(params.folder)
    return RawJson.of({"models": await available_models(workspace.settings)})


async def _set_model(server: PiLanguageServer, params: p.SetModelParams) -> Answer:
    return RawJson.of((await server.workspaces.set_model(params.sessionId, params.model)).state())


async def _set_thinking(server: PiLanguageServer, params: p.SetThinkingParams) -> Answer:
    live = server.workspaces.get(params.sessionId)
    return RawJson.of(live.set_thinking_level(params.level))


METHODS: list[Method[BaseModel]] = [
    Method(
        "pi/sessions/list",
        p.FolderParams,
        p.SessionList,
        _list_sessions,
        "pi's session list of a folder, newest first.",
    ).erased(),
    Method(
        "pi/session/new",
        p.FolderParams,
        views.SessionState,
        _new_session,
        "Start a new session in a folder.",
    ).erased(),
    Method(
        "pi/session/open",
        p.OpenParams,
        views.SessionState,
        _open_session,
        "Open a session file (pi's or pi_lsp's).",
    ).erased(),
    Method(
        "pi/session/close",
        p.SessionParams,
        p.Empty,
        _close_session,
        "Close a session (its turn is aborted).",
    ).erased(),
    Method(
        "pi/session/state",
        p.SessionParams,
        views.SessionState,
        _state,
        "Model, thinking level, leaf, streaming, queues, context usage.",
    ).erased(),
    Method(
        "pi/session/rename",
        p.RenameParams,
        views.SessionState,
        _rename,
        "Name the session.",
    ).erased(),
    Method(
        "pi/session/tree",
        p.SessionParams,
        p.TreeResult,
        _tree,
        "Every entry of the session tree.",
    ).erased(),
    Method(
        "pi/session/messages",
        p.SessionParams,
        p.MessagesResult,
        _messages,
        "The entries of the context at the leaf (what a chat panel shows).",
    ).erased(),
    Method(
        "pi/session/prompt",
        p.PromptParams,
        views.PromptResult,
        _prompt,
        "Start a turn; answered once the user message is stored.",
    ).erased(),
    Method(
        "pi/session/steer",
        p.QueueParams,
        views.QueueResult,
        _steer,
        "Queue a message delivered before the next model call.",
    ).erased(),
    Method(
        "pi/session/followUp",
        p.QueueParams,
        views.QueueResult,
        _follow_up,
        "Queue a message delivered when the agent would stop.",
    ).erased(),
    Method(
        "pi/session/abort",
        p.SessionParams,
        views.AbortResult,
        _abort,
        "Stop the running turn.",
    ).erased(),
    Method(
        "pi/session/branch",
        p.BranchParams,
        views.BranchResult,
        _branch,
        "Move to any entry, optionally summarizing the branch left.",
    ).erased(),
    Method(
        "pi/session/fork",
        p.EntryParams,
        p.ForkResult,
        _fork,
        "Copy the path to an entry into a new session file.",
    ).erased(),
    Method(
        "pi/session/label",
        p.LabelParams,
        views.LabelResult,
        _label,
        "Set or clear an entry's bookmark.",
    ).erased(),
    Method(
        "pi/session/compact",
        p.CompactParams,
        CompactionResult,
        _compact,
        "Compact now, with $/progress.",
    ).erased(),
    Method(
        "pi/models/list",
        p.FolderParams,
        p.ModelsResult,
        _models,
        "Models the daemon can use.",
    ).erased(),
    Method(
        "pi/session/setModel",
        p.SetModelParams,
        views.SessionState,
        _set_model,
        "Switch the model (a model_change entry).",
    ).erased(),
    Method(
        "pi/session/setThinkingLevel",
        p.SetThinkingParams,
        views.SessionState,
        _set_thinking,
        "Change the thinking level.",
    ).erased(),
]
"""Every ``pi/…`` request, in documentation order."""


R = TypeVar("R")


async def with_progress(
    server: PiLanguageServer, title: str, work: Awaitable[R], on_cancel: Callable[[], None]
) -> R:
    """Await ``work`` inside a cancellable progress report.

    The editor's cancel button calls ``on_cancel``, looked up when pressed, so it reaches the
    work's current abort signal.
    """
    if not server.shows_progress:
        return await work
    progress = server.work_done_progress
    token = str(uuid.uuid4())
    try:
        await asyncio.wait_for(progress.create_async(token), 5)
    except Exception:  # a client that cannot show progress still gets the work done
        return await work
    progress.begin(token, T.WorkDoneProgressBegin(title=title, cancellable=True, message=title))
    watcher = spawn(_watch_cancel(progress, token, on_cancel), "watching $/progress cancel")
    try:
        result = await work
    except BaseException as exc:
        progress.end(
            token, T.WorkDoneProgressEnd(message=f"Failed: {exc}" if str(exc) else "Cancelled")
        )
        raise
    finally:
        watcher.cancel()
    progress.end(token, T.WorkDoneProgressEnd(message="Done"))
    return result


async def _watch_cancel(progress: Progress, token: str, on_cancel: Callable[[], None]) -> None:
    future = progress.tokens.get(token)
    if future is None:
        return
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wrap_future(future)
    if future.cancelled():
        on_cancel()

"""Every ``pi/…`` request: its name, params model, result model and handler (the one map).

Handlers are short: validate params, call :class:`pi_lsp.daemon.workspaces.Workspaces` or a
:class:`pi_lsp.daemon.live_session.LiveSession`, return JSON. Domain errors become JSON-RPC
errors with the codes in :mod:`pi_lsp.protocol.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from pydantic import BaseModel

from pi_lsp.compaction.models import CompactionResult
from pi_lsp.daemon import results as r
from pi_lsp.daemon.models_list import available_models
from pi_lsp.protocol import payloads as p
from pi_lsp.protocol.context import PiLanguageServer
from pi_lsp.protocol.progress import with_progress
from pi_lsp.protocol.wire import RawJson
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import ImageContent

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


def _images(params: p.PromptParams | p.QueueParams) -> list[ImageContent]:
    return [ImageContent(type="image", data=i.data, mimeType=i.mimeType) for i in params.images]


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
        r.SessionState,
        _new_session,
        "Start a new session in a folder.",
    ).erased(),
    Method(
        "pi/session/open",
        p.OpenParams,
        r.SessionState,
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
        r.SessionState,
        _state,
        "Model, thinking level, leaf, streaming, queues, context usage.",
    ).erased(),
    Method(
        "pi/session/rename",
        p.RenameParams,
        r.SessionState,
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
        r.PromptResult,
        _prompt,
        "Start a turn; answered once the user message is stored.",
    ).erased(),
    Method(
        "pi/session/steer",
        p.QueueParams,
        r.QueueResult,
        _steer,
        "Queue a message delivered before the next model call.",
    ).erased(),
    Method(
        "pi/session/followUp",
        p.QueueParams,
        r.QueueResult,
        _follow_up,
        "Queue a message delivered when the agent would stop.",
    ).erased(),
    Method(
        "pi/session/abort",
        p.SessionParams,
        r.AbortResult,
        _abort,
        "Stop the running turn.",
    ).erased(),
    Method(
        "pi/session/branch",
        p.BranchParams,
        r.BranchResult,
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
        r.LabelResult,
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
        r.SessionState,
        _set_model,
        "Switch the model (a model_change entry).",
    ).erased(),
    Method(
        "pi/session/setThinkingLevel",
        p.SetThinkingParams,
        r.SessionState,
        _set_thinking,
        "Change the thinking level.",
    ).erased(),
]
"""Every ``pi/…`` request, in documentation order."""

"""Every ``pi/…`` request: its name, params model, result model and handler (the one map).

Handlers are short: validate params, call :class:`pi_lsp.daemon.workspaces.Workspaces` or a
:class:`pi_lsp.daemon.live_session.LiveSession`, return JSON. Domain errors become JSON-RPC
errors with the codes in :mod:`pi_lsp.protocol.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from pi_lsp.compaction.models import CompactionResult
from pi_lsp.daemon import results as r
from pi_lsp.daemon.models_list import available_models
from pi_lsp.protocol import payloads as p
from pi_lsp.protocol.context import ServerContext
from pi_lsp.protocol.progress import with_progress
from pi_lsp.protocol.wire import RawJson

Handler = Callable[[ServerContext, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Method:
    """One ``pi/…`` request."""

    name: str
    params: type[BaseModel]
    result: type[BaseModel]
    handler: Handler
    summary: str


def _images(params: p.PromptParams | p.QueueParams) -> list[dict[str, Any]]:
    return [{"type": "image", "data": i.data, "mimeType": i.mimeType} for i in params.images]


async def _list_sessions(ctx: ServerContext, params: p.FolderParams) -> Any:
    infos = await ctx.workspaces.list_sessions(params.folder)
    return RawJson.of({"sessions": [i.model_dump() for i in infos]})


async def _new_session(ctx: ServerContext, params: p.FolderParams) -> Any:
    return RawJson.of((await ctx.workspaces.new_session(params.folder)).state())


async def _open_session(ctx: ServerContext, params: p.OpenParams) -> Any:
    return RawJson.of((await ctx.workspaces.open_session(params.path, params.folder)).state())


async def _close_session(ctx: ServerContext, params: p.SessionParams) -> Any:
    ctx.workspaces.get(params.sessionId)
    await ctx.workspaces.close(params.sessionId)
    return {}


async def _state(ctx: ServerContext, params: p.SessionParams) -> Any:
    return RawJson.of(ctx.workspaces.get(params.sessionId).state())


async def _rename(ctx: ServerContext, params: p.RenameParams) -> Any:
    return RawJson.of(ctx.workspaces.get(params.sessionId).rename(params.name))


async def _tree(ctx: ServerContext, params: p.SessionParams) -> Any:
    return RawJson(ctx.workspaces.get(params.sessionId).tree_json())


async def _messages(ctx: ServerContext, params: p.SessionParams) -> Any:
    return RawJson(ctx.workspaces.get(params.sessionId).messages_json())


async def _prompt(ctx: ServerContext, params: p.PromptParams) -> Any:
    live = ctx.workspaces.get(params.sessionId)
    return await live.prompt(params.text, _images(params), params.streamingBehavior)


async def _steer(ctx: ServerContext, params: p.QueueParams) -> Any:
    return ctx.workspaces.get(params.sessionId).queue(params.text, _images(params), "steer")


async def _follow_up(ctx: ServerContext, params: p.QueueParams) -> Any:
    return ctx.workspaces.get(params.sessionId).queue(params.text, _images(params), "followUp")


async def _abort(ctx: ServerContext, params: p.SessionParams) -> Any:
    return await ctx.workspaces.get(params.sessionId).abort()


async def _branch(ctx: ServerContext, params: p.BranchParams) -> Any:
    live = ctx.workspaces.get(params.sessionId)
    return await live.navigate(
        params.entryId, summarize=params.summarize, focus=params.focus, label=params.label
    )


async def _fork(ctx: ServerContext, params: p.EntryParams) -> Any:
    live, text = await ctx.workspaces.fork(params.sessionId, params.entryId)
    return RawJson.of({"session": live.state(), "editorText": text})


async def _label(ctx: ServerContext, params: p.LabelParams) -> Any:
    return ctx.workspaces.get(params.sessionId).label(params.entryId, params.label)


async def _compact(ctx: ServerContext, params: p.CompactParams) -> Any:
    live = ctx.workspaces.get(params.sessionId)
    result: CompactionResult = await with_progress(
        ctx,
        "Compacting the session",
        live.compact(params.focus),
        lambda: live.agent.abort_event.set(),
    )
    return RawJson.of(result)


async def _models(ctx: ServerContext, params: p.FolderParams) -> Any:
    workspace = ctx.workspaces.folder(params.folder)
    return RawJson.of({"models": await available_models(workspace.settings)})


async def _set_model(ctx: ServerContext, params: p.SetModelParams) -> Any:
    return RawJson.of((await ctx.workspaces.set_model(params.sessionId, params.model)).state())


async def _set_thinking(ctx: ServerContext, params: p.SetThinkingParams) -> Any:
    live = ctx.workspaces.get(params.sessionId)
    return RawJson.of(live.set_thinking_level(params.level))


METHODS = [
    Method(
        "pi/sessions/list",
        p.FolderParams,
        p.SessionList,
        _list_sessions,
        "pi's session list of a folder, newest first.",
    ),
    Method(
        "pi/session/new",
        p.FolderParams,
        r.SessionState,
        _new_session,
        "Start a new session in a folder.",
    ),
    Method(
        "pi/session/open",
        p.OpenParams,
        r.SessionState,
        _open_session,
        "Open a session file (pi's or pi_lsp's).",
    ),
    Method(
        "pi/session/close",
        p.SessionParams,
        p.Empty,
        _close_session,
        "Close a session (its turn is aborted).",
    ),
    Method(
        "pi/session/state",
        p.SessionParams,
        r.SessionState,
        _state,
        "Model, thinking level, leaf, streaming, queues, context usage.",
    ),
    Method(
        "pi/session/rename",
        p.RenameParams,
        r.SessionState,
        _rename,
        "Name the session.",
    ),
    Method(
        "pi/session/tree",
        p.SessionParams,
        p.TreeResult,
        _tree,
        "Every entry of the session tree.",
    ),
    Method(
        "pi/session/messages",
        p.SessionParams,
        p.MessagesResult,
        _messages,
        "The entries of the context at the leaf (what a chat panel shows).",
    ),
    Method(
        "pi/session/prompt",
        p.PromptParams,
        r.PromptResult,
        _prompt,
        "Start a turn; answered once the user message is stored.",
    ),
    Method(
        "pi/session/steer",
        p.QueueParams,
        r.QueueResult,
        _steer,
        "Queue a message delivered before the next model call.",
    ),
    Method(
        "pi/session/followUp",
        p.QueueParams,
        r.QueueResult,
        _follow_up,
        "Queue a message delivered when the agent would stop.",
    ),
    Method(
        "pi/session/abort",
        p.SessionParams,
        r.AbortResult,
        _abort,
        "Stop the running turn.",
    ),
    Method(
        "pi/session/branch",
        p.BranchParams,
        r.BranchResult,
        _branch,
        "Move to any entry, optionally summarizing the branch left.",
    ),
    Method(
        "pi/session/fork",
        p.EntryParams,
        p.ForkResult,
        _fork,
        "Copy the path to an entry into a new session file.",
    ),
    Method(
        "pi/session/label",
        p.LabelParams,
        r.LabelResult,
        _label,
        "Set or clear an entry's bookmark.",
    ),
    Method(
        "pi/session/compact",
        p.CompactParams,
        CompactionResult,
        _compact,
        "Compact now, with $/progress.",
    ),
    Method(
        "pi/models/list",
        p.FolderParams,
        p.ModelsResult,
        _models,
        "Models the daemon can use.",
    ),
    Method(
        "pi/session/setModel",
        p.SetModelParams,
        r.SessionState,
        _set_model,
        "Switch the model (a model_change entry).",
    ),
    Method(
        "pi/session/setThinkingLevel",
        p.SetThinkingParams,
        r.SessionState,
        _set_thinking,
        "Change the thinking level.",
    ),
]
"""Every ``pi/…`` request, in documentation order."""

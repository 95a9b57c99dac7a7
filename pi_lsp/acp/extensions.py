"""pi's extras ACP has no word for, as extension methods (``_pi/…``).

- ``_pi/tree {sessionId}``: every entry of the session tree (the LSP face's ``pi/session/tree``).
- ``_pi/branch {sessionId, entryId, summary?, focus?, label?, replay?}``: move the leaf to any
  entry, optionally summarizing the branch left (``summary: true``, with ``focus``
  instructions). ACP has no update that clears a client's chat, so the new active branch is then
  replayed as ``session/update``s, as ``session/load`` does (``replay: false`` skips it), before
  the answer; its messages keep their ``messageId``s, so a client can tell the shared part.
- ``_pi/label {sessionId, entryId, label?}``: set or clear a bookmark.
- ``_pi/compact {sessionId, focus?}``: compact now.
- ``_pi/steer {sessionId, text}``: queue a message for the running turn (pi's steering).
- ``_pi/rename {sessionId, name}``: name the session (a ``session_info_update`` follows).

Params are checked with pydantic models (unknown fields refused); errors are the daemon's codes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from acp import RequestError
from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from pi_lsp.acp.agent import PiAgent


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sessionId: str


class BranchParams(_Params):
    """``_pi/branch``."""

    entryId: str
    summary: bool = False
    focus: str | None = None
    label: str | None = None
    replay: bool = True


class LabelParams(_Params):
    """``_pi/label``."""

    entryId: str
    label: str | None = None


class CompactParams(_Params):
    """``_pi/compact``."""

    focus: str | None = None


class RenameParams(_Params):
    """``_pi/rename``."""

    name: str


class SteerParams(_Params):
    """``_pi/steer``."""

    text: str


def _parse(model: type[BaseModel], params: dict[str, Any]) -> Any:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'params'}: {e['msg']}" for e in exc.errors()
        ]
        raise RequestError.invalid_params({"problems": problems[:20]}) from None


async def call(agent: PiAgent, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run extension ``method`` (its name without the leading underscore)."""
    if method == "pi/tree":
        state = agent.sessions.require(_parse(_Params, params).sessionId)
        return json.loads(state.live.tree_json())  # type: ignore[no-any-return]
    if method == "pi/branch":
        branch: BranchParams = _parse(BranchParams, params)
        state = agent.sessions.require(branch.sessionId)
        result = await state.live.navigate(
            branch.entryId, summarize=branch.summary, focus=branch.focus, label=branch.label
        )
        await agent.send_config_update(state)
        if branch.replay:
            await agent.send_replay(state.live.store)
        return {**result, "replayed": branch.replay}
    if method == "pi/label":
        label: LabelParams = _parse(LabelParams, params)
        return agent.sessions.require(label.sessionId).live.label(label.entryId, label.label)
    if method == "pi/compact":
        compact: CompactParams = _parse(CompactParams, params)
        state = agent.sessions.require(compact.sessionId)
        compacted = await state.live.compact(compact.focus)
        usage = state.usage_update()
        if usage is not None and agent.outbox is not None:
            agent.outbox.send(state.live.id, usage)
            await agent.outbox.drain()
        return compacted.model_dump(mode="json", by_alias=True)
    if method == "pi/steer":
        steer: SteerParams = _parse(SteerParams, params)
        state = agent.sessions.require(steer.sessionId)
        if not state.live.agent.is_streaming:
            raise RequestError.invalid_params(
                {"sessionId": "no turn is running: use session/prompt"}
            )
        return state.live.queue(steer.text, [], "steer")
    if method == "pi/rename":
        rename: RenameParams = _parse(RenameParams, params)
        state = agent.sessions.require(rename.sessionId)
        renamed = state.live.rename(rename.name)
        if agent.outbox is not None:
            await agent.outbox.drain()
        return {"sessionName": renamed["sessionName"]}
    raise RequestError.method_not_found(f"_{method}")

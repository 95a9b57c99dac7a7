"""What a client controls on a session besides its prompts: config options, modes, ``_pi/…``.

**Config options.** The model and the thinking level. The model list is the daemon's
(:func:`pi_lsp.daemon.workspaces.available_models`: configured models first, then those of
providers with credentials), with the session's current model added if it is not in it; the
thinking levels are those the current model accepts.

**Modes.** Three stances on the permission gate (:mod:`pi_lsp.agent.permissions`), for this
connection's session only (nothing is stored or written to settings):

- ``ask``: the ``permissions`` settings as they are (bash and writes outside the workspace ask);
- ``allow_edits``: writes and edits outside the workspace are allowed without asking; shell
  commands, protected paths (``.git``, ``.vscode`` …) and secrets still ask, and a ``deny``
  setting still denies;
- ``read_only``: pi's read-only tool set (``read``, ``grep``, ``find``, ``ls``): the model is not
  offered the others, and a write or shell command still in flight is refused without asking.

**Extension methods.** pi's extras ACP has no word for (:func:`call_extension`):

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

Their params are checked with pydantic models (unknown fields refused), whose JSON Schemas are
``schemas/acp-pi-*.params.schema.json``; errors are the daemon's codes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from acp import RequestError
from acp.schema import (
    CurrentModeUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)
from pydantic import BaseModel, ConfigDict, ValidationError

from pi_lsp.agent.models import available_thinking_levels
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import ModelInfoOut

if TYPE_CHECKING:
    from pi_lsp.acp.agent import PiAgent

ConfigOption = SessionConfigOptionSelect | SessionConfigOptionBoolean
"""A session config option (the SDK's union)."""

MODEL = "model"
THINKING = "thought_level"

ASK = "ask"
ALLOW_EDITS = "allow_edits"
READ_ONLY = "read_only"
MODES = (
    SessionMode(
        id=ASK,
        name="Ask",
        description="Ask before shell commands and writes outside the workspace",
    ),
    SessionMode(
        id=ALLOW_EDITS,
        name="Allow edits",
        description="Write and edit files anywhere without asking; shell commands still ask",
    ),
    SessionMode(
        id=READ_ONLY,
        name="Read-only",
        description="Only read, grep, find and ls: no edits, writes or shell commands",
    ),
)
READ_ONLY_TOOLS = ("read", "grep", "find", "ls")
"""pi's read-only tool set (its ``--tools read,grep,find,ls``)."""


def mode_state(current: str) -> SessionModeState:
    """The modes offered and the current one (in session/new, load, resume and fork answers)."""
    return SessionModeState(current_mode_id=current, available_modes=list(MODES))


def mode_update(current: str) -> CurrentModeUpdate:
    """``current_mode_update``: the session's mode changed."""
    return CurrentModeUpdate(session_update="current_mode_update", current_mode_id=current)


def is_mode(mode_id: str) -> bool:
    """Whether ``mode_id`` names one of :data:`MODES`."""
    return any(mode.id == mode_id for mode in MODES)


def _option(value: str, name: str | None = None) -> SessionConfigSelectOption:
    return SessionConfigSelectOption(value=value, name=name or value)


def config_options(live: LiveSession, models: list[ModelInfoOut]) -> list[ConfigOption]:
    """The two options with their current values."""
    model = live.agent.model
    current = f"{model.ref.provider}/{model.ref.model_id}" if model else ""
    ids = [m["id"] for m in models]
    if current and current not in ids:
        ids.insert(0, current)
    options: list[ConfigOption] = []
    if ids:
        options.append(
            SessionConfigOptionSelect(
                type="select",
                id=MODEL,
                name="Model",
                category="model",
                description="The model answering (a model_change entry in the session)",
                current_value=current or ids[0],
                options=[_option(i) for i in ids],
            )
        )
    levels = list(available_thinking_levels(model)) if model else ["off"]
    options.append(
        SessionConfigOptionSelect(
            type="select",
            id=THINKING,
            name="Thinking",
            category="thought_level",
            description="How much the model reasons before answering",
            current_value=live.agent.thinking_level,
            options=[_option(level) for level in levels],
        )
    )
    return options


class AcpSessionParams(BaseModel):
    """``_pi/tree``, and the session every ``_pi/…`` method names."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    sessionId: str


P = TypeVar("P", bound=AcpSessionParams)


class AcpBranchParams(AcpSessionParams):
    """``_pi/branch``: move the leaf to any entry."""

    entryId: str
    summary: bool = False
    """Summarize the branch being left into a ``branch_summary`` entry."""
    focus: str | None = None
    """Extra instructions for that summary."""
    label: str | None = None
    """Bookmark to set on the summary (or on the target when no summary is written)."""
    replay: bool = True
    """Replay the new active branch as ``session/update``s before answering."""


class AcpLabelParams(AcpSessionParams):
    """``_pi/label``: set (text) or clear (null or empty) an entry's bookmark."""

    entryId: str
    label: str | None = None


class AcpCompactParams(AcpSessionParams):
    """``_pi/compact``: compact now (``focus``: what the summary should concentrate on)."""

    focus: str | None = None


class AcpRenameParams(AcpSessionParams):
    """``_pi/rename``: name the session."""

    name: str


class AcpSteerParams(AcpSessionParams):
    """``_pi/steer``: a steering message for the running turn."""

    text: str


EXTENSION_PARAMS: dict[str, type[AcpSessionParams]] = {
    "pi/tree": AcpSessionParams,
    "pi/branch": AcpBranchParams,
    "pi/label": AcpLabelParams,
    "pi/compact": AcpCompactParams,
    "pi/steer": AcpSteerParams,
    "pi/rename": AcpRenameParams,
}
"""Each extension method (without its leading underscore) and its params; ``schemas/`` has them."""


def _parse(model: type[P], params: dict[str, Any]) -> P:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'params'}: {e['msg']}" for e in exc.errors()
        ]
        raise RequestError.invalid_params({"problems": problems[:20]}) from None


async def call_extension(agent: PiAgent, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run extension ``method`` (its name without the leading underscore)."""
    if method == "pi/tree":
        state = agent.sessions.require(_parse(AcpSessionParams, params).sessionId)
        return json.loads(state.live.tree_json())  # type: ignore[no-any-return]
    if method == "pi/branch":
        branch = _parse(AcpBranchParams, params)
        state = agent.sessions.require(branch.sessionId)
        result = await state.live.navigate(
            branch.entryId, summarize=branch.summary, focus=branch.focus, label=branch.label
        )
        await agent.send_config_update(state)
        if branch.replay:
            await agent.send_replay(state.live.store)
        return {**result, "replayed": branch.replay}
    if method == "pi/label":
        label = _parse(AcpLabelParams, params)
        return agent.sessions.require(label.sessionId).live.label(label.entryId, label.label)
    if method == "pi/compact":
        compact = _parse(AcpCompactParams, params)
        state = agent.sessions.require(compact.sessionId)
        compacted = await state.live.compact(compact.focus)
        usage = state.usage_update()
        if usage is not None and agent.outbox is not None:
            agent.outbox.send(state.live.id, usage)
            await agent.outbox.drain()
        return compacted.model_dump(mode="json", by_alias=True)
    if method == "pi/steer":
        steer = _parse(AcpSteerParams, params)
        state = agent.sessions.require(steer.sessionId)
        if not state.live.agent.is_streaming:
            raise RequestError.invalid_params(
                {"sessionId": "no turn is running: use session/prompt"}
            )
        return state.live.queue(steer.text, [], "steer")
    if method == "pi/rename":
        rename = _parse(AcpRenameParams, params)
        state = agent.sessions.require(rename.sessionId)
        renamed = state.live.rename(rename.name)
        if agent.outbox is not None:
            await agent.outbox.drain()
        return {"sessionName": renamed["sessionName"]}
    raise RequestError.method_not_found(f"_{method}")

"""What a client sets on a session: the model and thinking level (config options) and the mode.

The model list is the daemon's (:func:`pi_lsp.daemon.workspaces.available_models`: configured
models first, then those of providers with credentials), with the session's current model added
if it is not in it; the thinking levels are those the current model accepts.

The session modes are three stances on the permission gate (:mod:`pi_lsp.agent.permissions`),
for this connection's session only (nothing is stored or written to settings):

- ``ask``: the ``permissions`` settings as they are (bash and writes outside the workspace ask);
- ``allow_edits``: writes and edits outside the workspace are allowed without asking; shell
  commands, protected paths (``.git``, ``.vscode`` …) and secrets still ask, and a ``deny``
  setting still denies;
- ``read_only``: pi's read-only tool set (``read``, ``grep``, ``find``, ``ls``): the model is not
  offered the others, and a write or shell command still in flight is refused without asking.
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    CurrentModeUpdate,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from pi_lsp.agent.models import available_thinking_levels
from pi_lsp.daemon.live_session import LiveSession
from pi_lsp.daemon.workspaces import ModelInfoOut

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


def config_options(live: LiveSession, models: list[ModelInfoOut]) -> list[Any]:
    """The two options with their current values."""
    model = live.agent.model
    current = f"{model.ref.provider}/{model.ref.model_id}" if model else ""
    ids = [m["id"] for m in models]
    if current and current not in ids:
        ids.insert(0, current)
    options: list[Any] = []
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

"""Session config options: the model and the thinking level, as ACP ``select`` options.

The model list is the daemon's (:func:`pi_lsp.daemon.workspaces.available_models`: configured
models first, then those of providers with credentials), with the session's current model added
if it is not in it; the thinking levels are those the current model accepts.
"""

from __future__ import annotations

from typing import Any

from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

from pi_lsp.agent.models import available_thinking_levels
from pi_lsp.daemon.live_session import LiveSession

MODEL = "model"
THINKING = "thought_level"


def _option(value: str, name: str | None = None) -> SessionConfigSelectOption:
    return SessionConfigSelectOption(value=value, name=name or value)


def config_options(live: LiveSession, models: list[dict[str, Any]]) -> list[Any]:
    """The two options with their current values."""
    model = live.agent.model
    current = f"{model.ref.provider}/{model.ref.model_id}" if model else ""
    ids = [str(m["id"]) for m in models]
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

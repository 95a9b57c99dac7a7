"""pi 1.6.0's settings where an agent session is assembled: its tools and thinking level."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_lsp.agent import AgentOptions, choose_thinking_level
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.agent.models import ModelRef
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings

REF = ModelRef("openai", "o9")


def _settings(**values: object) -> Settings:
    return Settings.model_validate(values)


def test_a_new_session_takes_the_models_thinking_level_first() -> None:
    settings = _settings(defaultThinkingLevel="high", modelThinkingLevels={"openai/o9": "low"})
    fresh = SessionStore.in_memory("/w")
    assert choose_thinking_level(fresh, settings, None, REF) == "low"
    assert choose_thinking_level(fresh, settings, "minimal", REF) == "minimal"
    assert choose_thinking_level(fresh, settings, None, ModelRef("openai", "x")) == "high"
    used = SessionStore.in_memory("/w")
    used.append_message(user("hi"))
    used.append_message(assistant("hello"))
    # pi 1.6.0: a session with messages and no thinking entry takes the default, not the model's
    assert choose_thinking_level(used, settings, None, REF) == "high"
    assert choose_thinking_level(fresh, _settings(defaultThinkingLevel="max"), None, REF) == "max"


def test_default_tools_choose_the_active_tools(tmp_path: Path) -> None:
    async def active(settings: Settings, options: AgentOptions | None = None) -> tuple[str, ...]:
        agent = await create_agent_session(SessionStore.in_memory(str(tmp_path)), str(tmp_path),
                                           settings, options)  # fmt: skip
        return agent.config.active_tools

    assert asyncio.run(active(Settings())) == ("read", "bash", "edit", "write")
    assert asyncio.run(active(_settings(defaultTools=["+grep", "-bash"]))) == (
        "read",
        "edit",
        "write",
        "grep",
    )
    explicit = AgentOptions(active_tools=("ls",))
    assert asyncio.run(active(_settings(defaultTools=["read"]), explicit)) == ("ls",)

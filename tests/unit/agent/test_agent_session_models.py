"""Switching an agent session's model: the thinking level pi 1.6.0 takes for it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_lsp.agent import AgentOptions, resolve
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.agent.models import ModelRef
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings


def test_switching_model_takes_pis_thinking_level_for_it(tmp_path: Path) -> None:
    thinks = {"reasoning": True}
    settings = Settings.model_validate(
        {
            "modelThinkingLevels": {"openai/think-b": "minimal"},
            "models": {
                "openai/think-a": thinks,
                "openai/think-b": thinks,
                "openai/think-c": thinks,
            },
        }
    )

    async def levels() -> list[str]:
        agent = await create_agent_session(SessionStore.in_memory(str(tmp_path)), str(tmp_path),
                                           settings, AgentOptions(model="openai/think-a",
                                                                  thinking_level="high"))  # fmt: skip
        seen = [agent.thinking_level]
        agent.set_model(await resolve(ModelRef("openai", "think-a"), settings))  # a run's check
        seen.append(agent.thinking_level)
        agent.switch_model(await resolve(ModelRef("openai", "think-b"), settings))
        seen.append(agent.thinking_level)
        agent.switch_model(await resolve(ModelRef("openai", "think-c"), settings))
        seen.append(agent.thinking_level)
        return seen

    # a run keeps the level; a switch takes the model's entry; without one (and no default)
    # the current level stays, as pi 1.6.0's setModel does
    assert asyncio.run(levels()) == ["high", "high", "minimal", "minimal"]

"""pi 1.6.0's settings where an agent session is assembled: tools, thinking, retries."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_lsp.agent import AgentOptions, choose_thinking_level, resolve
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.agent.maintenance import after_error, retry_delay_ms
from pi_lsp.agent.models import ModelInfo, ModelRef
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore
from pi_lsp.settings import RetrySettings, Settings

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


def test_retry_waits_stop_at_max_agent_delay_and_long_server_waits_fail() -> None:
    retry = RetrySettings(baseDelayMs=2000, maxAgentDelayMs=5000, maxRetries=9)
    assert [retry_delay_ms(retry, n) for n in (1, 2, 3, 4)] == [2000, 4000, 5000, 5000]
    model = asyncio.run(_model())
    busy = {"role": "assistant", "stopReason": "error", "errorMessage": "429 rate limit",
            "usage": {}, "retryAfterMs": 9000}  # fmt: skip
    waits = RetrySettings.model_validate({"provider": {"maxRetryDelayMs": 10000}})
    assert after_error(busy, model, waits, 0).action == "retry"
    short = RetrySettings.model_validate({"provider": {"maxRetryDelayMs": 8000}})
    assert after_error(busy, model, short, 0).action == "give_up"


async def _model() -> ModelInfo:
    return await resolve(ModelRef("openai", "gpt-4o"), Settings())


def test_switching_model_takes_pis_thinking_level_for_it(tmp_path: Path) -> None:
    thinks = {"reasoning": True}
    settings = _settings(
        modelThinkingLevels={"openai/think-b": "minimal"},
        models={"openai/think-a": thinks, "openai/think-b": thinks, "openai/think-c": thinks},
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

"""pi 1.6.0's initial-model rule and which providers have a key (``pi_lsp.agent.model_choice``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.agent import choose_model_ref
from pi_lsp.agent.model_choice import (
    DEFAULT_MODEL_PER_PROVIDER,
    configured_models,
    has_key,
    initial_model,
    key_variables,
    no_model_message,
    settings_default,
)
from pi_lsp.agent.models import ModelRef
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings

OPENAI = ModelRef("openai", "gpt-6.2-sol")
ANTHROPIC = ModelRef("anthropic", "claude-opus-5-5")
SAVED = ModelRef("google", "gemini-old")
MINE = ModelRef("openai", "my-model")


def keys(*providers: str) -> object:
    return lambda provider: provider in providers


def choose(**kw: object) -> tuple[str | None, str | None]:
    values: dict[str, object] = {
        "explicit": None,
        "session_model": None,
        "has_messages": False,
        "default": None,
    }
    values.update(kw)
    choice = initial_model(**values)  # type: ignore[arg-type]
    return (str(choice.ref) if choice.ref else None, choice.note)


def test_the_first_keyed_provider_in_pis_order_gives_its_default_model() -> None:
    assert choose(keyed=keys("openai")) == ("openai/gpt-6.2-sol", None)
    # anthropic precedes openai in pi's defaultModelPerProvider, whatever the key order
    assert choose(keyed=keys("openai", "anthropic")) == ("anthropic/claude-opus-5-5", None)
    assert choose(keyed=keys("xai", "google")) == ("google/gemini-4-argon", None)
    assert choose(keyed=keys()) == (None, None)


def test_the_settings_default_needs_a_key_for_its_provider() -> None:
    assert choose(default=MINE, keyed=keys("openai")) == ("openai/my-model", None)
    # without one, pi goes on to the keyed providers' defaults
    assert choose(default=MINE, keyed=keys("anthropic")) == ("anthropic/claude-opus-5-5", None)
    assert choose(default=MINE, keyed=keys()) == (None, None)


def test_an_explicit_model_wins_without_a_key() -> None:
    explicit = ModelRef("mistral", "x")
    assert choose(explicit=explicit, default=MINE, keyed=keys()) == ("mistral/x", None)


def test_a_sessions_model_is_restored_only_with_messages_and_a_key() -> None:
    restored = choose(
        session_model=SAVED, has_messages=True, default=MINE, keyed=keys("google", "openai")
    )
    assert restored == ("google/gemini-old", None)
    # no messages yet: pi does not restore it (a new session takes the defaults)
    assert choose(session_model=SAVED, default=MINE, keyed=keys("google", "openai"))[0] == str(MINE)
    # its provider lost its key: pi's fallback message names both models
    assert choose(session_model=SAVED, has_messages=True, keyed=keys("openai")) == (
        "openai/gpt-6.2-sol",
        "Could not restore model google/gemini-old. Using openai/gpt-6.2-sol",
    )
    assert choose(session_model=SAVED, has_messages=True, keyed=keys()) == (
        None,
        "Could not restore model google/gemini-old. No model available",
    )


def test_configured_models_come_last() -> None:
    local = ModelRef("typesafe", "t1")
    assert choose(configured=[MINE, local], keyed=keys("typesafe")) == ("typesafe/t1", None)
    assert choose(configured=[local], keyed=keys("typesafe", "groq")) == (
        "groq/openai/gpt-oss-120b",
        None,
    )


def test_keys_are_pis_variables_plus_litellms() -> None:
    assert has_key("anthropic", {"ANTHROPIC_OAUTH_TOKEN": "t"})
    assert has_key("vercel-ai-gateway", {"AI_GATEWAY_API_KEY": "k"})  # pi's name
    assert has_key("vercel-ai-gateway", {"VERCEL_AI_GATEWAY_API_KEY": "k"})  # litellm's
    assert has_key("huggingface", {"HF_TOKEN": "k"})
    assert not has_key("openai", {"OPENAI_API_KEY": ""})
    assert not has_key("openai-codex", {})  # OAuth only (pi's auth.json): not for pi_lsp
    assert has_key("amazon-bedrock", {"AWS_PROFILE": "dev"})
    assert not has_key("amazon-bedrock", {"AWS_ACCESS_KEY_ID": "a"})
    assert has_key("amazon-bedrock", {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"})
    # a provider nobody names credentials for (a local server litellm calls) needs none
    assert has_key("ollama", {})


def test_vertex_needs_credentials_a_project_and_a_location(tmp_path: Path) -> None:
    adc = tmp_path / "adc.json"
    adc.write_text("{}")
    env = {"GOOGLE_APPLICATION_CREDENTIALS": str(adc), "GOOGLE_CLOUD_PROJECT": "p"}
    assert not has_key("google-vertex", env)
    assert has_key("google-vertex", {**env, "GOOGLE_CLOUD_LOCATION": "us-central1"})
    assert has_key("google-vertex", {"GOOGLE_CLOUD_API_KEY": "k"})


def test_every_default_provider_but_codex_can_be_given_a_key() -> None:
    assert list(DEFAULT_MODEL_PER_PROVIDER)[:4] == [
        "amazon-bedrock",
        "ant-ling",
        "anthropic",
        "openai",
    ]
    assert len(DEFAULT_MODEL_PER_PROVIDER) == 42  # pi 1.6.0's table
    unkeyable = [
        provider
        for provider in DEFAULT_MODEL_PER_PROVIDER
        if provider not in ("amazon-bedrock", "google-vertex")
        and not (key_variables(provider) and has_key(provider, {key_variables(provider)[0]: "k"}))
    ]
    assert unkeyable == ["openai-codex"]
    assert all(not has_key(provider, {}) for provider in DEFAULT_MODEL_PER_PROVIDER)


def test_settings_default_and_configured_models() -> None:
    assert settings_default(Settings(defaultModel="openai/x")) == ModelRef("openai", "x")
    assert settings_default(Settings(defaultModel="x", defaultProvider="xai")) == ModelRef(
        "xai", "x"
    )
    assert settings_default(Settings(defaultModel="x")) is None  # pi needs both
    settings = Settings.model_validate({"models": {"a/b": {}, "nope": {}, "gemini/g": {}}})
    assert configured_models(settings) == [ModelRef("a", "b"), ModelRef("google", "g")]


def test_the_no_model_message_says_what_to_set() -> None:
    assert no_model_message(None).startswith("No model selected: no provider key is set")
    named = no_model_message(ModelRef("xai", "grok"))
    assert named.startswith("No model selected: defaultModel xai/grok has no key (set XAI_API_KEY)")


def _clear_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_TOKEN")) or name.startswith(("AWS_", "GOOGLE_")):
            monkeypatch.delenv(name)


def test_a_store_takes_the_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_keys(monkeypatch)
    store = SessionStore.in_memory(str(tmp_path))
    assert choose_model_ref(store, Settings(), None) is None
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert choose_model_ref(store, Settings(), None) == OPENAI
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert choose_model_ref(store, Settings(), None) == ANTHROPIC
    assert choose_model_ref(store, Settings(defaultModel="openai/my-model"), None) == MINE
    # a session with messages keeps its keyed model over the settings default
    store.append_message(user("hi"))
    store.append_message(assistant("hello", provider="anthropic", model="claude-x"))
    assert choose_model_ref(store, Settings(defaultModel="openai/my-model"), None) == ModelRef(
        "anthropic", "claude-x"
    )
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert choose_model_ref(store, Settings(defaultModel="openai/my-model"), None) == MINE

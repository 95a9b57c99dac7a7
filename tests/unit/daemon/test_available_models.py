"""The models ``pi/models/list`` offers: settings first, then each keyed provider's (pi's order)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.agent import model_choice
from pi_lsp.daemon.workspaces import available_models
from pi_lsp.settings import Settings

LISTS = {"openai": ["gpt-a", "gpt-6.2-sol"], "anthropic": ["claude-x"], "gemini": ["gemini-y"]}


@pytest.fixture(autouse=True)
def only_these_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_TOKEN")) or name.startswith(("AWS_", "GOOGLE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PI_LSP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(model_choice, "is_loaded", lambda: False)


def ids(settings: Settings, *, with_litellm: bool = True) -> list[str]:
    return [m["id"] for m in asyncio.run(available_models(settings, with_litellm=with_litellm))]


def test_settings_then_each_keyed_providers_default_and_litellms_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model_choice.write_cache(LISTS)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    settings = Settings.model_validate({"defaultModel": "openai/mine", "models": {"xai/local": {}}})
    assert ids(settings) == [
        "openai/mine",
        "xai/local",
        "openai/gpt-6.2-sol",  # pi's default first, litellm's list after it (no duplicate)
        "openai/gpt-a",
        "google/gemini-4-argon",
        "google/gemini-y",  # pi's name for litellm's gemini provider
    ]


def test_no_key_offers_only_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    model_choice.write_cache(LISTS)
    assert ids(Settings.model_validate({"models": {"openai/m": {}}})) == ["openai/m"]


def test_without_waiting_for_litellm_and_no_cache_pis_defaults_are_still_offered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert ids(Settings(), with_litellm=False) == ["anthropic/claude-opus-5-5"]
    model_choice.write_cache(LISTS)
    assert ids(Settings(), with_litellm=False) == [
        "anthropic/claude-opus-5-5",
        "anthropic/claude-x",
    ]

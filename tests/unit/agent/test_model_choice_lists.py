"""litellm's chat model lists and their cache file (``pi_lsp.agent.model_choice``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, cast

import pytest

from pi_lsp.agent import model_choice
from pi_lsp.agent.llm import litellm_module


def _fake_litellm() -> ModuleType:
    return cast(
        ModuleType,
        SimpleNamespace(
            models_by_provider={
                "openai": {"gpt-b", "gpt-a", "text-embedding-3", "openai/gpt-c"},
                "openrouter": {"openrouter/anthropic/claude-x"},
                "empty": {"an-embedding"},
            },
            model_cost={
                "text-embedding-3": {"mode": "embedding"},
                "an-embedding": {"mode": "embedding"},
            },
        ),
    )


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_LSP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(model_choice, "_read", {})
    return tmp_path / "cache"


def test_chat_models_without_prefixes_sorted_and_without_other_modes() -> None:
    assert model_choice.from_litellm(_fake_litellm()) == {
        "openai": ["gpt-a", "gpt-b", "gpt-c"],
        "openrouter": ["anthropic/claude-x"],
    }


def test_the_cache_file_is_named_after_the_litellm_install(cache: Path) -> None:
    path = model_choice.cache_file()
    assert path is not None and path.parent == cache
    assert path.name.startswith("litellm-chat-models-") and path.suffix == ".json"
    assert model_choice.read_cache() is None
    model_choice.write_cache({"openai": ["gpt-a"]})
    assert model_choice.read_cache() == {"openai": ["gpt-a"]}
    assert [p.name for p in cache.iterdir()] == [path.name]  # no temporary file left behind
    assert model_choice.read_cache() == {"openai": ["gpt-a"]}  # read once per process
    model_choice._read.clear()
    path.write_text(json.dumps({"format": 0, "providers": {}}))
    assert model_choice.read_cache() is None  # another format: computed again


def test_xdg_cache_home_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PI_LSP_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert model_choice.cache_dir() == tmp_path / "pi-lsp"


def test_an_unwritable_cache_is_only_logged(cache: Path) -> None:
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file where the folder should be")
    model_choice.write_cache({"openai": ["gpt-a"]})
    assert model_choice.read_cache() is None


def test_a_cached_list_answers_without_importing_litellm(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_import() -> Any:
        raise AssertionError("litellm was imported")

    monkeypatch.setattr(model_choice, "is_loaded", lambda: False)
    monkeypatch.setattr(model_choice, "load_litellm", no_import)
    model_choice.write_cache({"openai": ["gpt-a"]})
    assert asyncio.run(model_choice.chat_models()) == {"openai": ["gpt-a"]}
    assert model_choice.cached_or_loaded() == {"openai": ["gpt-a"]}


def test_without_a_cache_litellm_answers_and_the_cache_is_written(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def fake_import() -> ModuleType:
        return _fake_litellm()

    monkeypatch.setattr(model_choice, "is_loaded", lambda: False)
    monkeypatch.setattr(model_choice, "load_litellm", fake_import)
    assert model_choice.cached_or_loaded() is None
    expected = model_choice.from_litellm(_fake_litellm())
    assert asyncio.run(model_choice.chat_models()) == expected
    assert model_choice.read_cache() == expected


def test_the_cache_holds_what_litellm_lists(cache: Path) -> None:
    real = model_choice.from_litellm(litellm_module())
    assert "gpt-4o" in real["openai"] and len(real) > 20
    model_choice.write_cache(real)
    assert model_choice.read_cache() == real

"""Shared test configuration: where the conformance corpus lives, and pi's agent folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE_DIR = Path(
    os.environ.get("PI_LSP_CONFORMANCE_DIR", ROOT.parent / "shared" / "conformance" / "pi-v0.58.3")
)
"""The corpus is read in place (never copied); PI_LSP_CONFORMANCE_DIR points at another one."""


@pytest.fixture
def conformance_dir() -> Path:
    """The conformance corpus folder."""
    return CONFORMANCE_DIR


@pytest.fixture
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pi's agent folder for this test (``PI_CODING_AGENT_DIR``), with a test key for the
    scripted server and litellm's bundled model table (no network)."""
    folder = tmp_path / "agent"
    folder.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return folder


@pytest.fixture(autouse=True, scope="session")
def _own_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """pi_lsp's cache (the model-list file, ``PI_LSP_CACHE_DIR``) in a folder of this test run,
    for the tests and every daemon they start, so a run never writes into the user's
    ``~/.cache``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PI_LSP_CACHE_DIR", str(tmp_path_factory.mktemp("pi-lsp-cache")))
        yield None

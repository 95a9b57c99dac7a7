"""Shared test configuration: where the conformance corpus lives."""

from __future__ import annotations

import os
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

"""Fixtures for the interop tests: one pi 1.6.0 oracle process per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.interop.pi16 import Oracle


@pytest.fixture(scope="module")
def pi() -> Iterator[Oracle]:
    """A running pi 1.6.0 oracle."""
    process = Oracle()
    yield process
    process.close()

"""The in-process editor double of the edits tests (``fake_editor.FakeEditor``)."""

from __future__ import annotations

import pytest

from tests.unit.edits.fake_editor import FakeEditor


@pytest.fixture
def editor() -> FakeEditor:
    """An editor with VS Code's capabilities and no open buffers."""
    return FakeEditor()

"""EditorFileSystem checks the text an editor reports after it said an edit was applied."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.edits import EditorFileSystem
from pi_lsp.tools import ToolError
from tests.unit.edits.fake_editor import FakeEditor


@pytest.fixture(autouse=True)
def watching(editor: FakeEditor) -> None:
    """This editor offers ``watch_text``."""
    editor.watch = True


@pytest.fixture
def path(tmp_path: Path, editor: FakeEditor) -> str:
    return editor.open_file(tmp_path / "calc.py", "def add(a, b):\n    return abs(a) + b\n")


async def test_an_edit_reported_back_as_computed_succeeds(editor: FakeEditor, path: str) -> None:
    fs = EditorFileSystem(editor)
    await fs.write_text(path, "def add(a, b):\n    return a + b\n")
    assert editor.buffers[path].text == "def add(a, b):\n    return a + b\n"
    assert editor.told == []


async def test_an_edit_applied_at_stale_positions_is_a_failed_edit_and_the_user_is_told(
    editor: FakeEditor, path: str
) -> None:
    editor.misapply = "def add(a, b):\n    result =eturn abs(a) + b\n"
    fs = EditorFileSystem(editor)
    with pytest.raises(ToolError) as failure:
        await fs.write_text(path, "def add(a, b):\n    return a + b\n")
    assert "not the expected result" in str(failure.value)
    assert "Successfully" not in str(failure.value)
    (told,) = editor.told
    assert path in told and "undo restores" in told
    # the overlay does not pretend the computed text is there
    assert await fs.read_text(path) == editor.misapply


async def test_a_late_report_is_still_checked(editor: FakeEditor, path: str) -> None:
    editor.deliver_changes = False
    editor.misapply = "garbled\n"
    fs = EditorFileSystem(editor, settle_timeout=0.05)
    await fs.write_text(path, "def add(a, b):\n    return a + b\n")  # trusted after 0.05 s
    assert editor.told == []
    editor.deliver()
    for _ in range(100):
        if editor.told:
            break
        await asyncio.sleep(0.02)
    assert len(editor.told) == 1 and path in editor.told[0]

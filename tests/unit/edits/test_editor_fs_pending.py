"""EditorFileSystem: edit mode disk, clients without applyEdit, and edits not reported back yet."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.devtools.builders import Clock
from pi_lsp.edits import EditorFileSystem, TextChange, tool_scope
from pi_lsp.tools import ToolError
from tests.unit.edits.fake_editor import FakeEditor


@pytest.fixture
def clean(tmp_path: Path, editor: FakeEditor) -> str:
    """A file open in the editor without unsaved changes."""
    return editor.open_file(tmp_path / "clean.txt", "one\n")


@pytest.fixture
def dirty(tmp_path: Path, editor: FakeEditor) -> str:
    """A file open in the editor with unsaved changes."""
    return editor.open_file(tmp_path / "dirty.txt", "saved\n", "unsaved\n")


async def test_edit_mode_disk_writes_files_with_clean_buffers_to_disk(
    editor: FakeEditor, clean: str
) -> None:
    fs = EditorFileSystem(editor, edit_mode="disk")
    await fs.write_text(clean, "two\n")
    assert editor.requests == []
    assert Path(clean).read_text() == "two\n"


async def test_edit_mode_disk_never_writes_behind_unsaved_changes(
    editor: FakeEditor, dirty: str
) -> None:
    fs = EditorFileSystem(editor, edit_mode="disk")
    with pytest.raises(ToolError, match=r"unsaved changes in the editor.*\"editMode\" setting"):
        await fs.write_text(dirty, "model\n")
    assert Path(dirty).read_text() == "saved\n"
    assert editor.buffers[dirty].text == "unsaved\n"


async def test_a_client_without_apply_edit_gets_disk_writes(
    editor: FakeEditor, clean: str, dirty: str
) -> None:
    editor.can_apply_edits = False
    fs = EditorFileSystem(editor)
    await fs.write_text(clean, "two\n")
    assert Path(clean).read_text() == "two\n"
    with pytest.raises(ToolError, match="does not accept workspace edits"):
        await fs.write_text(dirty, "model\n")
    assert editor.requests == []


async def test_edit_mode_is_read_per_path_at_every_write(
    editor: FakeEditor, clean: str, tmp_path: Path
) -> None:
    modes = {clean: "disk"}
    fs = EditorFileSystem(editor, edit_mode=lambda p: modes.get(p, "editor"))  # type: ignore[arg-type,return-value]
    await fs.write_text(clean, "disk\n")
    modes.clear()
    Path(clean).write_text("one\n")
    await fs.write_text(clean, "editor\n")
    assert Path(clean).read_text() == "one\n"
    assert editor.buffers[clean].text == "editor\n"


async def test_a_byte_order_mark_on_disk_is_not_an_unsaved_change(
    editor: FakeEditor, tmp_path: Path
) -> None:
    file = tmp_path / "bom.txt"
    file.write_bytes(b"\xef\xbb\xbfsame\n")
    editor.open(str(file), "same\n")  # editors show the text without the mark
    await EditorFileSystem(editor, edit_mode="disk").write_text(str(file), "new\n")
    assert file.read_text() == "new\n"


async def test_reads_see_an_applied_edit_until_the_editor_reports_it(
    editor: FakeEditor, clean: str
) -> None:
    editor.deliver_changes = False
    fs = EditorFileSystem(editor)
    await fs.write_text(clean, "two\n")
    assert editor.open_document(clean).text == "one\n"  # type: ignore[union-attr]
    assert await fs.read_text(clean) == "two\n"
    editor.deliver()
    editor.type(clean, "user\n")
    assert await fs.read_text(clean) == "user\n"


async def test_an_edit_never_reported_back_stops_hiding_the_buffer(
    editor: FakeEditor, clean: str
) -> None:
    editor.deliver_changes = False
    clock = Clock(100.0, step=0.0)
    fs = EditorFileSystem(editor, settle_timeout=5.0, clock=clock)
    await fs.write_text(clean, "two\n")
    clock.now += 4.0
    assert await fs.read_text(clean) == "two\n"
    clock.now += 2.0
    assert await fs.read_text(clean) == "one\n"


async def test_a_write_waits_for_the_previous_edit_to_be_reported(
    editor: FakeEditor, clean: str
) -> None:
    editor.deliver_changes = False
    fs = EditorFileSystem(editor)
    with tool_scope("edit"):
        await fs.write_text(clean, "two\n")
        text = await fs.read_text(clean)
        asyncio.get_running_loop().call_soon(editor.deliver)
        await fs.write_text(clean, text + "three\n")
    second = editor.requests[1].operations[0]
    assert isinstance(second, TextChange) and second.version == 2
    assert editor.buffers[clean].text == "two\nthree\n"


async def test_a_write_after_an_edit_never_reported_back_is_refused(
    editor: FakeEditor, clean: str
) -> None:
    editor.deliver_changes = False
    fs = EditorFileSystem(editor, settle_timeout=5.0, clock=Clock(100.0, step=1.0))
    await fs.write_text(clean, "two\n")
    with pytest.raises(ToolError, match="did not report the result of the previous change"):
        await fs.write_text(clean, "three\n")
    assert len(editor.requests) == 1
    assert await fs.read_text(clean) == "one\n"


async def test_parallel_writes_to_one_file_are_serialized(editor: FakeEditor, clean: str) -> None:
    fs = EditorFileSystem(editor)

    async def write(text: str) -> None:
        with tool_scope("write"):
            await fs.write_text(clean, text)

    await asyncio.gather(write("first\n"), write("second\n"))
    versions = [r.operations[0].version for r in editor.requests]  # type: ignore[union-attr]
    assert versions == [1, 2]
    assert editor.buffers[clean].text == "second\n"


async def test_reads_in_one_tool_call_are_invisible_to_another(
    editor: FakeEditor, clean: str
) -> None:
    fs = EditorFileSystem(editor)
    read_done = asyncio.Event()

    async def reader() -> None:
        with tool_scope("read"):
            await fs.read_text(clean)
            read_done.set()

    async def writer() -> None:
        await read_done.wait()
        editor.type(clean, "user\n")
        with tool_scope("write"):
            await fs.write_text(clean, "model\n")  # no read of its own: not stale

    await asyncio.gather(reader(), writer())
    assert editor.requests[0].annotation == "pi: write"
    assert editor.buffers[clean].text == "model\n"

"""pi's real read, edit and write tools running over EditorFileSystem and an in-memory editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.edits import CreateFile, EditorFileSystem, TextChange, tool_scope
from pi_lsp.tools import EditTool, ReadTool, ToolError, ToolResult, WriteTool
from tests.unit.edits.fake_editor import FakeEditor

SAVED = "def greet(name):\r\n    return 'hi ' + name\r\n"
UNSAVED = "def greet(name):\r\n    return 'hi 😀 ' + name\r\n\r\nprint(greet('x'))\r\n"


@pytest.fixture
def workspace(tmp_path: Path, editor: FakeEditor) -> Path:
    editor.open_file(tmp_path / "greet.py", SAVED, UNSAVED, version=7)
    return tmp_path


async def run(tool: EditTool | WriteTool | ReadTool, args: dict[str, object]) -> ToolResult:
    """Run a tool as the agent loop does: inside a scope naming it."""
    with tool_scope(tool.name):
        return await tool.execute(args)


async def test_read_returns_the_unsaved_buffer(editor: FakeEditor, workspace: Path) -> None:
    tool = ReadTool(str(workspace), EditorFileSystem(editor))
    result = await run(tool, {"path": "greet.py"})
    assert "print(greet('x'))" in result.text


async def test_edit_changes_the_buffer_through_one_minimal_edit(
    editor: FakeEditor, workspace: Path
) -> None:
    tool = EditTool(str(workspace), EditorFileSystem(editor))
    result = await run(tool, {"path": "greet.py", "oldText": "'hi 😀 '", "newText": "'hello 😀 '"})
    assert result.text == "Successfully replaced 1 block(s) in greet.py."  # pi 1.6.0's text
    (request,) = editor.requests
    (change,) = request.operations
    assert isinstance(change, TextChange) and change.version == 7
    assert [
        (e.start_line, e.start_char, e.end_line, e.end_char, e.new_text) for e in change.edits
    ] == [(1, 13, 1, 14, "ello")]
    assert request.annotation == "pi: edit"
    assert editor.buffers[str(workspace / "greet.py")].text == UNSAVED.replace("hi", "hello")
    assert (workspace / "greet.py").read_bytes() == SAVED.encode()


async def test_a_refused_edit_reaches_the_model_as_the_tool_error(
    editor: FakeEditor, workspace: Path
) -> None:
    editor.refuse = "the document was modified concurrently"
    tool = EditTool(str(workspace), EditorFileSystem(editor))
    with pytest.raises(ToolError) as caught:
        await run(tool, {"path": "greet.py", "oldText": "print", "newText": "log"})
    assert caught.value.message == (
        f"The editor refused the change to {workspace / 'greet.py'} (the document was modified "
        "concurrently). Read the file again and redo the change against its current content."
    )
    assert editor.buffers[str(workspace / "greet.py")].text == UNSAVED


async def test_write_creates_a_new_file_in_the_editor(editor: FakeEditor, workspace: Path) -> None:
    fs = EditorFileSystem(editor)
    result = await run(
        WriteTool(str(workspace), fs), {"path": "pkg/new.py", "content": "x = '😀'\n"}
    )
    assert result.text == "Successfully wrote 9 bytes to pkg/new.py"
    (request,) = editor.requests
    assert isinstance(request.operations[0], CreateFile)
    assert request.annotation == "pi: write"
    read = await run(ReadTool(str(workspace), fs), {"path": "pkg/new.py"})
    assert read.text == "x = '😀'\n"


async def test_write_then_edit_of_a_new_file_builds_on_the_editor_text(
    editor: FakeEditor, workspace: Path
) -> None:
    editor.deliver_changes = False  # the editor reports nothing until told
    fs = EditorFileSystem(editor)
    await run(WriteTool(str(workspace), fs), {"path": "notes.md", "content": "# A\n"})
    await run(
        EditTool(str(workspace), fs), {"path": "notes.md", "oldText": "# A", "newText": "# B"}
    )
    assert editor.buffers[str(workspace / "notes.md")].text == "# B\n"
    assert (workspace / "notes.md").read_text() == ""

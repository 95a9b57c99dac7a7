"""EditorFileSystem over an in-memory editor: buffers, versioned edits, refusals, the disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.edits import (
    CreateFile,
    EditorFileSystem,
    TextChange,
    apply_edits,
    path_to_uri,
    text_edits,
    tool_scope,
)
from pi_lsp.tools import ToolError
from tests.unit.edits.fake_editor import FakeEditor

SAVED = "alpha = 1\nbeta = 2\n"
UNSAVED = "alpha = 1\nbeta = 2\ngamma = 3\n"


@pytest.fixture
def fs(editor: FakeEditor) -> EditorFileSystem:
    return EditorFileSystem(editor)


@pytest.fixture
def path(tmp_path: Path, editor: FakeEditor) -> str:
    """A saved file whose editor buffer holds an unsaved third line."""
    return editor.open_file(tmp_path / "mod.py", SAVED, UNSAVED, version=4)


def only_change(editor: FakeEditor) -> TextChange:
    (request,) = editor.requests
    (change,) = request.operations
    assert isinstance(change, TextChange)
    return change


async def test_reads_see_the_unsaved_buffer(fs: EditorFileSystem, path: str) -> None:
    assert await fs.read_text(path) == UNSAVED
    assert await fs.read_bytes(path) == UNSAVED.encode()
    assert (await fs.stat(path)).size == len(UNSAVED)
    assert Path(path).read_text() == SAVED


async def test_files_not_open_are_read_from_disk(fs: EditorFileSystem, tmp_path: Path) -> None:
    other = tmp_path / "other.bin"
    other.write_bytes(b"\x89PNG\r\n")
    assert await fs.read_bytes(str(other)) == b"\x89PNG\r\n"
    assert await fs.exists(str(other))
    assert not await fs.exists(str(tmp_path / "missing"))


async def test_a_write_is_one_versioned_minimal_edit_with_an_annotation(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    new = UNSAVED.replace("beta = 2", "beta = 20")
    await fs.write_text(path, new)
    change = only_change(editor)
    assert change.version == 4
    assert change.uri == path_to_uri(path)
    assert list(change.edits) == text_edits(UNSAVED, new)
    assert [(e.start_line, e.start_char, e.end_line, e.end_char) for e in change.edits] == [
        (1, 8, 1, 8)
    ]
    assert editor.requests[0].label == editor.requests[0].annotation == "pi: write"
    assert editor.buffers[path].text == new
    assert Path(path).read_text() == SAVED


async def test_the_tool_name_reaches_the_annotation(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    with tool_scope("edit"):
        await fs.write_text(path, UNSAVED + "# one\n")
    await fs.write_text(path, UNSAVED + "# two\n", tool="custom")
    text = await fs.read_text(path)
    await fs.write_text(path, text + "# three\n")
    assert [r.annotation for r in editor.requests] == ["pi: edit", "pi: custom", "pi: edit"]


async def test_without_annotation_support_only_the_label_is_set(
    editor: FakeEditor, fs: EditorFileSystem, path: str
) -> None:
    editor.change_annotations = False
    await fs.write_text(path, "x\n")
    assert (editor.requests[0].label, editor.requests[0].annotation) == ("pi: write", None)


async def test_a_refused_edit_is_a_tool_error_and_changes_nothing(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    editor.refuse = "file is read-only"
    with pytest.raises(ToolError) as caught:
        await fs.write_text(path, "replaced\n")
    assert "The editor refused the change" in caught.value.message
    assert "file is read-only" in caught.value.message
    assert "Read the file again" in caught.value.message
    assert len(editor.requests) == 1
    assert await fs.read_text(path) == UNSAVED
    assert Path(path).read_text() == SAVED


async def test_a_change_after_the_read_is_refused_before_sending(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    text = await fs.read_text(path)
    editor.type(path, UNSAVED + "user typed\n")
    with pytest.raises(ToolError, match="changed in the editor after it was read"):
        await fs.write_text(path, text.replace("alpha", "ALPHA"))
    assert editor.requests == []
    assert editor.buffers[path].text == UNSAVED + "user typed\n"


async def test_a_change_the_server_has_not_seen_yet_is_refused_by_the_editor(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    text = await fs.read_text(path)
    editor.type(path, "user typed\n" + UNSAVED, deliver=False)
    with pytest.raises(ToolError, match=r"refused the change .*version 4 != 5"):
        await fs.write_text(path, text.replace("alpha", "ALPHA"))
    assert editor.buffers[path].text == "user typed\n" + UNSAVED
    editor.deliver()
    assert await fs.read_text(path) == "user typed\n" + UNSAVED


async def test_without_document_changes_edits_are_unversioned(
    editor: FakeEditor, fs: EditorFileSystem, path: str
) -> None:
    editor.document_changes = editor.change_annotations = editor.create_files = False
    await fs.write_text(path, "short\n")
    assert only_change(editor).version is None
    assert editor.buffers[path].text == "short\n"


async def test_positions_follow_the_negotiated_encoding(
    editor: FakeEditor, fs: EditorFileSystem, tmp_path: Path
) -> None:
    editor.position_encoding = "utf-8"
    file = str(tmp_path / "emoji.txt")
    editor.open(file, "😀 = 1\r\n😀😀 = 2\r\n")
    await fs.write_text(file, "😀 = 1\r\n😀😀 = 3\r\n")
    (edit,) = only_change(editor).edits
    assert (edit.start_line, edit.start_char, edit.new_text) == (1, 11, "3")
    assert editor.buffers[file].text == "😀 = 1\r\n😀😀 = 3\r\n"


async def test_a_new_file_is_created_in_the_editor(
    fs: EditorFileSystem, editor: FakeEditor, tmp_path: Path
) -> None:
    new = str(tmp_path / "new.py")
    await fs.write_text(new, "print('hi')\n")
    (request,) = editor.requests
    create, content = request.operations
    assert create == CreateFile(path_to_uri(new))
    assert isinstance(content, TextChange) and content.version is None
    assert apply_edits("", content.edits) == "print('hi')\n"
    assert Path(new).read_text() == ""  # created empty; the content waits for a save
    assert await fs.read_text(new) == "print('hi')\n"


async def test_an_empty_new_file_is_only_created(
    fs: EditorFileSystem, editor: FakeEditor, tmp_path: Path
) -> None:
    await fs.write_text(str(tmp_path / "empty.txt"), "")
    assert editor.requests[0].operations == (CreateFile(path_to_uri(str(tmp_path / "empty.txt"))),)


@pytest.mark.parametrize(
    ("name", "before", "create_files"),
    [
        pytest.param("new.py", None, False, id="a-new-file-without-create-support"),
        pytest.param("other.txt", "old\n", True, id="a-file-not-open"),
    ],
)
async def test_writes_the_editor_does_not_hold_go_to_disk(
    editor: FakeEditor,
    fs: EditorFileSystem,
    tmp_path: Path,
    name: str,
    before: str | None,
    create_files: bool,
) -> None:
    editor.create_files = create_files
    target = tmp_path / name
    if before is not None:
        target.write_text(before)
    await fs.write_text(str(target), "x = 1\n")
    assert editor.requests == []
    assert target.read_text() == "x = 1\n"


async def test_a_created_file_the_editor_keeps_to_itself_stays_readable_and_editable(
    editor: FakeEditor, fs: EditorFileSystem, tmp_path: Path
) -> None:
    editor.open_created = False  # Neovim creates a buffer the server never hears about
    new = str(tmp_path / "new.md")
    await fs.write_text(new, "# Title\n")
    assert editor.open_document(new) is None
    text = await fs.read_text(new)
    assert text == "# Title\n"
    await fs.write_text(new, text + "body\n")
    assert only_created_edit(editor).version is None
    assert editor.buffers[new].text == await fs.read_text(new) == "# Title\nbody\n"
    Path(new).write_text("# Saved\n")  # the user saved something else: the disk wins
    assert await fs.read_text(new) == "# Saved\n"


def only_created_edit(editor: FakeEditor) -> TextChange:
    (change,) = editor.requests[-1].operations
    assert isinstance(change, TextChange)
    return change


async def test_same_content_sends_nothing(
    fs: EditorFileSystem, editor: FakeEditor, path: str
) -> None:
    await fs.write_text(path, await fs.read_text(path))
    assert editor.requests == []

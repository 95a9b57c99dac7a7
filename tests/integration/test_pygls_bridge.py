"""EditorFileSystem + PyglsEditorBridge in a real pygls server, driven by a pytest-lsp editor.

The test client plays the editor (``tests/lsp_editor.py``: pygls buffers, VS Code's
applyEdit answers, a didChange for every change it applies). Two capability sets: VS Code's
(documentChanges, create, change annotations, UTF-16) and Neovim 0.11.4's as it prints them
(no documentChanges, positionEncodings utf-8/utf-16/utf-32, so pygls picks UTF-8).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from pygls.workspace import PositionCodec
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp_editor import NEOVIM_CAPABILITIES, VSCODE_CAPABILITIES, Editor

SERVER = Path(__file__).with_name("bridge_server.py")
CONFIG = ClientServerConfig(server_command=[sys.executable, str(SERVER)])
CAPABILITIES = {"vscode": VSCODE_CAPABILITIES, "neovim": NEOVIM_CAPABILITIES}


async def start(
    client: LanguageClient, flavour: str, options: dict[str, Any] | None = None
) -> None:
    editor = Editor(client)
    client.editor = editor  # type: ignore[attr-defined]
    client.flavour = flavour  # type: ignore[attr-defined]

    @client.feature("test/pause")
    def on_pause(params: Any) -> dict[str, Any]:
        editor.type(Path(params.path).as_uri(), "# typed while the tool worked\n")
        return {}

    result = await client.initialize_session(
        T.InitializeParams(capabilities=CAPABILITIES[flavour], initialization_options=options or {})
    )
    editor.codec = PositionCodec(result.capabilities.position_encoding)


@pytest_lsp.fixture(config=CONFIG, params=["vscode", "neovim"])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    await start(lsp_client, request.param)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def vscode(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start(lsp_client, "vscode")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def neovim(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start(lsp_client, "neovim")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def vscode_disk_mode(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start(lsp_client, "vscode", {"editMode": "disk"})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def vscode_impatient(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start(lsp_client, "vscode", {"applyTimeout": 0.3})
    yield
    await lsp_client.shutdown_session()


async def call(client: LanguageClient, method: str, **params: Any) -> Any:
    return await client.protocol.send_request_async(method, params)


def opened(client: LanguageClient, path: Path, text: str) -> tuple[Editor, str]:
    """``client``'s editor with ``path`` open holding ``text``, and the document's URI."""
    editor: Editor = client.editor  # type: ignore[attr-defined]
    return editor, editor.open(path, text)


SAVED = "def greet(name):\n    return 'hi ' + name\n"
UNSAVED = "def greet(name):\n    return '😀😀 hi ' + name\n\nprint(greet('x'))\n"


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "greet.py"
    path.write_text(SAVED)
    return path


async def test_reads_see_the_edited_unsaved_buffer(client: LanguageClient, module: Path) -> None:
    editor, uri = opened(client, module, SAVED)
    start = T.Position(line=1, character=len("    return '"))
    editor.change(uri, [T.TextDocumentContentChangePartial(T.Range(start, start), "😀😀 ")])
    editor.type(uri, "")  # a no-op change: the version moves, the text does not
    expected = SAVED.replace("'hi", "'😀😀 hi")
    assert editor.docs[uri].source == expected
    assert (await call(client, "test/read", path=str(module))).text == expected
    assert module.read_text() == SAVED


async def test_an_edit_reaches_the_buffer_as_one_minimal_edit(
    client: LanguageClient, module: Path
) -> None:
    editor, uri = opened(client, module, UNSAVED)
    result = await call(client, "test/edit", path=str(module), oldText="hi '", newText="hello '")
    assert result.error is None
    assert editor.docs[uri].source == UNSAVED.replace("hi '", "hello '")
    assert (await call(client, "test/read", path=str(module))).text == editor.docs[uri].source
    (request,) = editor.requests
    assert request.label == "pi: edit"
    if client.flavour == "vscode":  # type: ignore[attr-defined]
        (change,) = request.edit.document_changes or []
        assert isinstance(change, T.TextDocumentEdit)
        assert change.text_document.version == 1
        (edit,) = change.edits
        assert isinstance(edit, T.AnnotatedTextEdit)
        assert request.edit.change_annotations["pi"].label == "pi: edit"  # type: ignore[index]
        column = len("    return '😀😀 h".encode("utf-16-le")) // 2
    else:
        assert request.edit.document_changes is None and request.edit.change_annotations is None
        ((edit,),) = (request.edit.changes or {}).values()
        column = len("    return '😀😀 h".encode())
    assert (edit.range.start.line, edit.range.start.character, edit.new_text) == (1, column, "ello")
    assert module.read_text() == SAVED
    editor.save(uri)
    assert module.read_text() == UNSAVED.replace("hi '", "hello '")


@pytest.mark.parametrize(
    ("mode", "errors", "text"),
    [
        # the user declines: the text stays as it was
        (
            "refuse",
            ["The editor refused the change", "user declined", "Read the file again"],
            UNSAVED,
        ),
        # the user typed first: the edit's version is stale, the typing stays
        ("type-first", ["version 1 is stale"], "# the user was faster\n" + UNSAVED),
    ],
)
async def test_a_refused_edit_is_an_error_and_leaves_the_text_alone(
    vscode: LanguageClient, module: Path, mode: str, errors: list[str], text: str
) -> None:
    editor, uri = opened(vscode, module, UNSAVED)
    editor.mode = mode
    result = await call(vscode, "test/edit", path=str(module), oldText="print", newText="log")
    for error in errors:
        assert error in result.error
    assert editor.docs[uri].source == text
    assert (await call(vscode, "test/read", path=str(module))).text == text
    assert module.read_text() == SAVED


async def test_a_change_between_read_and_write_is_caught_before_sending(
    neovim: LanguageClient, module: Path
) -> None:
    editor, uri = opened(neovim, module, UNSAVED)
    result = await call(neovim, "test/readPauseWrite", path=str(module), content="# more\n")
    assert "changed in the editor after it was read" in result.error
    assert editor.requests == []
    assert editor.docs[uri].source == "# typed while the tool worked\n" + UNSAVED


async def test_a_new_file_is_created_through_the_editor(
    vscode: LanguageClient, tmp_path: Path
) -> None:
    editor: Editor = vscode.editor  # type: ignore[attr-defined]
    path = tmp_path / "new.py"
    assert (await call(vscode, "test/write", path=str(path), content="x = '😀'\n")).error is None
    (request,) = editor.requests
    create, content = request.edit.document_changes or []
    assert isinstance(create, T.CreateFile) and create.uri == path.as_uri()
    assert isinstance(content, T.TextDocumentEdit) and content.text_document.version is None
    assert path.read_text() == ""
    assert (await call(vscode, "test/read", path=str(path))).text == "x = '😀'\n"


async def test_neovim_new_files_go_to_disk(neovim: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "new.py"
    assert (await call(neovim, "test/write", path=str(path), content="x = 1\n")).error is None
    assert neovim.editor.requests == []  # type: ignore[attr-defined]
    assert path.read_text() == "x = 1\n"


async def test_reads_see_an_applied_edit_before_its_did_change(
    vscode: LanguageClient, module: Path
) -> None:
    editor, uri = opened(vscode, module, UNSAVED)
    editor.hold = True
    first = await call(vscode, "test/edit", path=str(module), oldText="hi '", newText="hey '")
    assert first.error is None
    expected = UNSAVED.replace("hi '", "hey '")
    assert (await call(vscode, "test/read", path=str(module))).text == expected
    editor.release()
    assert (await call(vscode, "test/read", path=str(module))).text == expected
    editor.hold = False
    second = await call(vscode, "test/edit", path=str(module), oldText="print", newText="log")
    assert second.error is None
    assert editor.docs[uri].source == expected.replace("print", "log")
    assert [r.edit.document_changes[0].text_document.version for r in editor.requests] == [1, 2]  # type: ignore[index,union-attr]


async def test_disk_mode_writes_clean_files_and_refuses_dirty_ones(
    vscode_disk_mode: LanguageClient, module: Path, tmp_path: Path
) -> None:
    client = vscode_disk_mode
    editor: Editor = client.editor  # type: ignore[attr-defined]
    editor.open(module, SAVED)
    assert (await call(client, "test/write", path=str(module), content="x = 1\n")).error is None
    assert module.read_text() == "x = 1\n"
    dirty = tmp_path / "dirty.py"
    dirty.write_text("saved\n")
    editor.open(dirty, "unsaved\n")
    result = await call(client, "test/write", path=str(dirty), content="model\n")
    assert "unsaved changes in the editor" in result.error
    assert dirty.read_text() == "saved\n"
    assert editor.requests == []


async def test_no_answer_is_a_refusal_and_the_late_answer_is_ignored(
    vscode_impatient: LanguageClient, module: Path
) -> None:
    client = vscode_impatient
    editor: Editor = client.editor  # type: ignore[attr-defined]
    editor.open(module, UNSAVED)
    editor.mode = "slow"
    result = await call(client, "test/write", path=str(module), content="x\n")
    assert "no answer within 0.3 s" in result.error
    editor.late.set()  # the answer goes out only now that the server gave up on it
    await editor.answered.wait()
    for _ in range(2):  # the second read is sent after the late answer went out
        assert (await call(client, "test/read", path=str(module))).text == UNSAVED
    assert [m.message for m in client.messages if m.type == T.MessageType.Error] == []


async def test_form_feeds_and_line_separators_do_not_shift_lines(
    client: LanguageClient, tmp_path: Path
) -> None:
    editor: Editor = client.editor  # type: ignore[attr-defined]
    path = tmp_path / "paged.c"
    path.write_text("")
    uri = editor.open(path, "int a;\x0c\nint b;\u2028/* c */\nint d = 1;\n")
    start, end = T.Position(line=2, character=8), T.Position(line=2, character=9)
    editor.change(uri, [T.TextDocumentContentChangePartial(T.Range(start, end), "2")])
    expected = "int a;\x0c\nint b;\u2028/* c */\nint d = 2;\n"
    assert editor.docs[uri].source == expected
    assert (await call(client, "test/read", path=str(path))).text == expected
    result = await call(client, "test/edit", path=str(path), oldText="d = 2", newText="d = 3")
    assert result.error is None
    assert editor.docs[uri].source == expected.replace("d = 2", "d = 3")


async def test_an_edit_applied_at_stale_positions_is_reported_as_failed(
    neovim: LanguageClient, module: Path
) -> None:
    """A client applies an unversioned edit on top of text the server has not seen: the text
    it reports back never was the edit's result, so the tool fails and the user is told."""
    editor, uri = opened(neovim, module, UNSAVED)
    editor.mode = "stale"
    result = await call(neovim, "test/edit", path=str(module), oldText="print", newText="log")
    assert result.text is None and "not the expected result" in result.error
    (message,) = [m for m in neovim.messages if "undo restores" in m.message]
    assert str(module) in message.message and message.type == T.MessageType.Warning
    assert editor.docs[uri].source != UNSAVED.replace("print", "log")


async def test_typing_right_after_an_edit_in_the_same_did_change_is_no_failure(
    neovim: LanguageClient, module: Path
) -> None:
    editor, uri = opened(neovim, module, UNSAVED)
    editor.mode = "type-after"
    result = await call(neovim, "test/edit", path=str(module), oldText="print", newText="log")
    assert result.error is None and "Successfully replaced" in result.text
    assert editor.docs[uri].source == "# typed\n" + UNSAVED.replace("print", "log")
    assert not [m for m in neovim.messages if "undo restores" in m.message]

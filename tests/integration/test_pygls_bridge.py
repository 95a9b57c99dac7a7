"""EditorFileSystem + PyglsEditorBridge in a real pygls server, driven by a pytest-lsp editor.

The test client plays the editor: it keeps its buffers as pygls ``TextDocument``s (so the
server's positions are checked by pygls's position codec in the negotiated encoding, with LSP
line breaks),
answers ``workspace/applyEdit`` as VS Code does (refusing a versioned edit against another
version) and sends ``didChange`` for every change it applies. Two capability sets: VS Code's
(documentChanges, create, change annotations, UTF-16) and Neovim 0.11.4's as it prints them
(no documentChanges, positionEncodings utf-8/utf-16/utf-32, so pygls picks UTF-8).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import converters
from lsprotocol import types as T
from pygls.workspace import PositionCodec, TextDocument
from pytest_lsp import ClientServerConfig, LanguageClient

from pi_lsp.bridge.documents import LspTextDocument

SERVER = Path(__file__).with_name("bridge_server.py")
CONFIG = ClientServerConfig(server_command=[sys.executable, str(SERVER)])
SYNC = {"synchronization": {"didSave": True, "willSave": True, "dynamicRegistration": False}}
CAPABILITIES: dict[str, dict[str, Any]] = {
    "vscode": {
        "workspace": {
            "applyEdit": True,
            "workspaceEdit": {
                "documentChanges": True,
                "resourceOperations": ["create", "rename", "delete"],
                "failureHandling": "textOnlyTransactional",
                "normalizesLineEndings": True,
                "changeAnnotationSupport": {"groupsOnLabel": True},
            },
        },
        "textDocument": SYNC,
        "general": {"positionEncodings": ["utf-16"]},
    },
    "neovim": {
        "workspace": {
            "applyEdit": True,
            "workspaceEdit": {"resourceOperations": ["rename", "create", "delete"]},
        },
        "textDocument": SYNC,
        "general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]},
    },
}


class Editor:
    """The editor side of the connection: buffers, applyEdit answers, saves."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.codec = PositionCodec()
        self.docs: dict[str, TextDocument] = {}
        self.requests: list[T.ApplyWorkspaceEditParams] = []
        self.mode = "accept"
        """accept; refuse; type-first (the user types just before the edit lands); slow."""
        self.hold = False
        """Keep didChange notifications back until ``release``."""
        self.held: list[T.DidChangeTextDocumentParams] = []
        self.answered = asyncio.Event()

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.docs[uri] = LspTextDocument(uri, text, version=1, position_codec=self.codec)
        item = T.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=item))
        return uri

    def type(self, uri: str, text: str) -> None:
        """The user inserts ``text`` at the top of the buffer."""
        start = T.Position(line=0, character=0)
        self._change(uri, [T.TextDocumentContentChangePartial(T.Range(start, start), text)])

    def save(self, uri: str) -> None:
        path = Path(self.docs[uri].path)
        path.write_bytes(self.docs[uri].source.encode())
        self.client.text_document_did_save(
            T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri))
        )

    def release(self) -> None:
        for params in self.held:
            self.client.text_document_did_change(params)
        self.held.clear()

    async def on_apply_edit(self, params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        self.requests.append(params)
        try:
            if self.mode == "slow":
                await asyncio.sleep(1.0)
                return T.ApplyWorkspaceEditResult(applied=False, failure_reason="too late")
            if self.mode == "refuse":
                return T.ApplyWorkspaceEditResult(applied=False, failure_reason="user declined")
            return self._apply(params.edit)
        finally:
            self.answered.set()

    def _apply(self, edit: T.WorkspaceEdit) -> T.ApplyWorkspaceEditResult:
        for uri, edits in (edit.changes or {}).items():
            if self.mode in ("stale", "type-after"):
                self._batched(uri, edits)
                continue
            self._edit(uri, None, edits)
        for change in edit.document_changes or []:
            if isinstance(change, T.CreateFile):
                Path(TextDocument(change.uri).path).touch()
                self.open(Path(TextDocument(change.uri).path), "")
                continue
            assert isinstance(change, T.TextDocumentEdit)
            uri, version = change.text_document.uri, change.text_document.version
            if self.mode == "type-first":
                self.type(uri, "# the user was faster\n")
            if version is not None and version != self.docs[uri].version:
                return T.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=f"version {version} is stale"
                )
            self._edit(uri, version, change.edits)
        return T.ApplyWorkspaceEditResult(applied=True)

    def _batched(self, uri: str, edits: Any) -> None:
        """Neovim without version checks: the user's typing and the edit in one didChange.

        ``stale``: the user typed first and the edit lands at its old positions (damage);
        ``type-after``: the edit lands, then the user types.
        """
        hold, self.hold = self.hold, True
        if self.mode == "stale":
            self.type(uri, "# typed\n")
        self._edit(uri, None, edits)
        if self.mode == "type-after":
            self.type(uri, "# typed\n")
        held, self.held, self.hold = self.held, [], hold
        merged = T.DidChangeTextDocumentParams(
            text_document=held[-1].text_document,
            content_changes=[c for p in held for c in p.content_changes],
        )
        self.client.text_document_did_change(merged)

    def _edit(self, uri: str, version: int | None, edits: Any) -> None:
        order = sorted(
            range(len(edits)),
            key=lambda i: (edits[i].range.start.line, edits[i].range.start.character, i),
        )
        self._change(
            uri,
            [
                T.TextDocumentContentChangePartial(edits[i].range, edits[i].new_text)
                for i in reversed(order)
            ],
        )

    def _change(self, uri: str, changes: list[T.TextDocumentContentChangePartial]) -> None:
        doc = self.docs[uri]
        for change in changes:
            doc.apply_change(change)
        doc.version = (doc.version or 0) + 1
        params = T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
            content_changes=list(changes),
        )
        if self.hold:
            self.held.append(params)
        else:
            self.client.text_document_did_change(params)


async def start(
    client: LanguageClient, flavour: str, options: dict[str, Any] | None = None
) -> None:
    editor = Editor(client)
    client.editor = editor  # type: ignore[attr-defined]
    client.flavour = flavour  # type: ignore[attr-defined]

    @client.feature(T.WORKSPACE_APPLY_EDIT)
    async def on_apply_edit(params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        return await editor.on_apply_edit(params)

    @client.feature("test/pause")
    def on_pause(params: Any) -> dict[str, Any]:
        editor.type(Path(params.path).as_uri(), "# typed while the tool worked\n")
        return {}

    capabilities = converters.get_converter().structure(CAPABILITIES[flavour], T.ClientCapabilities)
    result = await client.initialize_session(
        T.InitializeParams(capabilities=capabilities, initialization_options=options or {})
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


SAVED = "def greet(name):\n    return 'hi ' + name\n"
UNSAVED = "def greet(name):\n    return '😀😀 hi ' + name\n\nprint(greet('x'))\n"


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "greet.py"
    path.write_text(SAVED)
    return path


async def test_reads_see_the_edited_unsaved_buffer(client: LanguageClient, module: Path) -> None:
    editor: Editor = client.editor  # type: ignore[attr-defined]
    uri = editor.open(module, SAVED)
    start = T.Position(line=1, character=len("    return '"))
    editor._change(uri, [T.TextDocumentContentChangePartial(T.Range(start, start), "😀😀 ")])
    editor.type(uri, "")  # a no-op change: the version moves, the text does not
    expected = SAVED.replace("'hi", "'😀😀 hi")
    assert editor.docs[uri].source == expected
    assert (await call(client, "test/read", path=str(module))).text == expected
    assert module.read_text() == SAVED


async def test_an_edit_reaches_the_buffer_as_one_minimal_edit(
    client: LanguageClient, module: Path
) -> None:
    editor: Editor = client.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
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


async def test_a_refused_edit_is_an_error_and_leaves_the_text_alone(
    vscode: LanguageClient, module: Path
) -> None:
    editor: Editor = vscode.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
    editor.mode = "refuse"
    result = await call(vscode, "test/edit", path=str(module), oldText="print", newText="log")
    assert "The editor refused the change" in result.error and "user declined" in result.error
    assert "Read the file again" in result.error
    assert editor.docs[uri].source == UNSAVED
    assert (await call(vscode, "test/read", path=str(module))).text == UNSAVED
    assert module.read_text() == SAVED


async def test_a_stale_version_is_refused_by_the_editor(
    vscode: LanguageClient, module: Path
) -> None:
    editor: Editor = vscode.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
    editor.mode = "type-first"
    result = await call(vscode, "test/edit", path=str(module), oldText="print", newText="log")
    assert "version 1 is stale" in result.error
    typed = "# the user was faster\n" + UNSAVED
    assert editor.docs[uri].source == typed
    assert (await call(vscode, "test/read", path=str(module))).text == typed
    assert module.read_text() == SAVED


async def test_a_change_between_read_and_write_is_caught_before_sending(
    neovim: LanguageClient, module: Path
) -> None:
    editor: Editor = neovim.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
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
    editor: Editor = vscode.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
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
    editor._change(uri, [T.TextDocumentContentChangePartial(T.Range(start, end), "2")])
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
    editor: Editor = neovim.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
    editor.mode = "stale"
    result = await call(neovim, "test/edit", path=str(module), oldText="print", newText="log")
    assert result.text is None and "not the expected result" in result.error
    (message,) = [m for m in neovim.messages if "undo restores" in m.message]
    assert str(module) in message.message and message.type == T.MessageType.Warning
    assert editor.docs[uri].source != UNSAVED.replace("print", "log")


async def test_typing_right_after_an_edit_in_the_same_did_change_is_no_failure(
    neovim: LanguageClient, module: Path
) -> None:
    editor: Editor = neovim.editor  # type: ignore[attr-defined]
    uri = editor.open(module, UNSAVED)
    editor.mode = "type-after"
    result = await call(neovim, "test/edit", path=str(module), oldText="print", newText="log")
    assert result.error is None and "Successfully replaced" in result.text
    assert editor.docs[uri].source == "# typed\n" + UNSAVED.replace("print", "log")
    assert not [m for m in neovim.messages if "undo restores" in m.message]

"""The editor double of the LSP tests: the editor's side of a pytest-lsp connection.

One double for every test that talks LSP to a real server (the bridge integration tests, the
daemon's end-to-end tests, the JSON-RPC checks). It keeps the editor's buffers as pygls
``TextDocument``s, so the server's positions are checked by pygls's position codec in the
negotiated encoding, with LSP line breaks; it answers ``workspace/applyEdit`` as VS Code does
(refusing a versioned edit against another version, opening a closed file's buffer to edit it,
leaving the disk alone until ``save``) and sends ``didChange`` for every change it applies. It
records every applyEdit request, ``pi/event`` notification and permission request.

``mode`` chooses the applyEdit answer: ``accept``; ``refuse``; ``type-first`` (the user types
just before the edit lands); ``slow`` (a refusal held back until the test sets ``late``, e.g.
once the server has given up waiting); ``stale`` and ``type-after``
(Neovim without version checks: the user's typing and the edit in one didChange).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import converters
from lsprotocol import types as T
from pygls.workspace import PositionCodec, TextDocument
from pytest_lsp import LanguageClient

from pi_lsp.devtools import builders
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.protocol.language_server import LspTextDocument
from tests.deadlines import HANG

VSCODE_CAPABILITIES = converters.get_converter().structure(
    builders.VSCODE_CAPABILITIES, T.ClientCapabilities
)
NEOVIM_CAPABILITIES = converters.get_converter().structure(
    builders.NEOVIM_CAPABILITIES, T.ClientCapabilities
)
"""What the two editors announce (``pi_lsp.devtools.builders``), as lsprotocol types."""

REFUSAL = "user declined"
"""The failure reason of a refused edit."""


def plain(value: Any) -> Any:
    """pytest-lsp hands custom results back as namedtuples: turn them into dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class Editor:
    """The editor side of the connection: buffers, applyEdit answers, saves, what it received."""

    def __init__(
        self, client: LanguageClient, root: Path | None = None, fake: FakeOpenAI | None = None
    ) -> None:
        self.client = client
        self.root = root if root is not None else Path.cwd()
        """The workspace folder (end-to-end tests open files below it)."""
        self.fake = fake
        """The scripted model server the daemon talks to (end-to-end tests)."""
        self.codec = PositionCodec()
        self.docs: dict[str, TextDocument] = {}
        self.requests: list[T.ApplyWorkspaceEditParams] = []
        self.mode = "accept"
        self.hold = False
        """Keep didChange notifications back until ``release``."""
        self.held: list[T.DidChangeTextDocumentParams] = []
        self.answered = asyncio.Event()
        self.late = asyncio.Event()
        """Releases the answers held back in ``slow`` mode."""
        self.on_apply: Callable[[T.ApplyWorkspaceEditParams], T.ApplyWorkspaceEditResult] | None
        self.on_apply = None
        """Replaces the answer (the request is still recorded)."""
        self.events: list[dict[str, Any]] = []
        self.permission_requests: list[dict[str, Any]] = []
        self.permission_answer = "allowOnce"
        self.on_permission: Callable[[dict[str, Any]], None] | None = None
        """Called before a permission request is answered."""
        # pygls marks the handler it registers, so each is a function of its own (and the
        # applyEdit one a coroutine function, which pygls awaits)

        async def apply_edit(params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
            return await self.on_apply_edit(params)

        client.feature(T.WORKSPACE_APPLY_EDIT)(apply_edit)
        client.feature("pi/event")(lambda params: self._on_event(params))
        client.feature("pi/requestPermission")(lambda params: self._on_permission(params))

    @property
    def edits(self) -> list[T.WorkspaceEdit]:
        """The workspace edits the server asked to apply, in order."""
        return [request.edit for request in self.requests]

    def open(self, path: Path, text: str, version: int = 1) -> str:
        """The user opens ``path`` with ``text`` (didOpen sent); returns its URI."""
        uri = path.as_uri()
        self.docs[uri] = LspTextDocument(uri, text, version=version, position_codec=self.codec)
        item = T.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=item))
        return uri

    def type(self, uri: str, text: str) -> None:
        """The user inserts ``text`` at the top of the buffer."""
        start = T.Position(line=0, character=0)
        self.change(uri, [T.TextDocumentContentChangePartial(T.Range(start, start), text)])

    def save(self, uri: str) -> None:
        path = Path(self.docs[uri].path)
        path.write_bytes(self.docs[uri].source.encode())
        self.client.text_document_did_save(
            T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri))
        )

    def release(self) -> None:
        """Send the didChange notifications held back."""
        for params in self.held:
            self.client.text_document_did_change(params)
        self.held.clear()

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A request to the server; the result as plain dicts and lists."""
        return plain(await self.client.protocol.send_request_async(method, params))

    async def new_session(self) -> str:
        """A new session (``pi/session/new``); its id."""
        return str((await self.request("pi/session/new", {}))["sessionId"])

    async def prompt(self, session: str, text: str) -> Any:
        """Prompt ``session`` and wait for the end of the run it starts; the prompt's answer."""
        ends = len([e for e in self.events if e["event"]["type"] == "agent_end"])
        answer = await self.request("pi/session/prompt", {"sessionId": session, "text": text})
        await self.wait_for("agent_end", ends + 1)
        return answer

    async def wait_for(
        self, kind: str, count: int = 1, timeout: float = HANG
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` ``pi/event``s of type ``kind`` arrived; returns them.

        The first turn of a daemon imports litellm (40 s and more on a loaded machine), hence
        the default (``tests.deadlines.HANG``): it guards against a hang, it measures nothing.
        """
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = [e for e in self.events if e["event"]["type"] == kind]
            if len(found) >= count:
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(
                    f"no {kind} event in {timeout} s: {[e['event']['type'] for e in self.events]}"
                )
            await asyncio.sleep(0.02)

    async def on_apply_edit(self, params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        self.requests.append(params)
        try:
            if self.on_apply is not None:
                return self.on_apply(params)
            if self.mode == "slow":
                await self.late.wait()
                return T.ApplyWorkspaceEditResult(applied=False, failure_reason="too late")
            if self.mode == "refuse":
                return T.ApplyWorkspaceEditResult(applied=False, failure_reason=REFUSAL)
            return self._apply(params.edit)
        finally:
            self.answered.set()

    def _on_event(self, params: Any) -> None:
        self.events.append(plain(params))

    def _on_permission(self, params: Any) -> dict[str, str]:
        request = plain(params)
        self.permission_requests.append(request)
        if self.on_permission is not None:
            self.on_permission(request)
        return {"decision": self.permission_answer}

    def _buffer(self, uri: str) -> TextDocument:
        """The open buffer of ``uri``; a closed file is opened from disk first, as VS Code does."""
        if uri not in self.docs:
            path = Path(TextDocument(uri).path)
            self.open(path, path.read_text() if path.exists() else "")
        return self.docs[uri]

    def _apply(self, edit: T.WorkspaceEdit) -> T.ApplyWorkspaceEditResult:
        for uri, edits in (edit.changes or {}).items():
            if self.mode in ("stale", "type-after"):
                self._batched(uri, edits)
                continue
            self._edit(uri, edits)
        for change in edit.document_changes or []:
            if isinstance(change, T.CreateFile):
                Path(TextDocument(change.uri).path).touch()
                self.open(Path(TextDocument(change.uri).path), "")
                continue
            assert isinstance(change, T.TextDocumentEdit)
            uri, version = change.text_document.uri, change.text_document.version
            if self.mode == "type-first":
                self.type(uri, "# the user was faster\n")
            if version is not None and version != self._buffer(uri).version:
                return T.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=f"version {version} is stale"
                )
            self._edit(uri, change.edits)
        return T.ApplyWorkspaceEditResult(applied=True)

    def _batched(self, uri: str, edits: Any) -> None:
        """Neovim without version checks: the user's typing and the edit in one didChange.

        ``stale``: the user typed first and the edit lands at its old positions (damage);
        ``type-after``: the edit lands, then the user types.
        """
        hold, self.hold = self.hold, True
        if self.mode == "stale":
            self.type(uri, "# typed\n")
        self._edit(uri, edits)
        if self.mode == "type-after":
            self.type(uri, "# typed\n")
        held, self.held, self.hold = self.held, [], hold
        merged = T.DidChangeTextDocumentParams(
            text_document=held[-1].text_document,
            content_changes=[c for p in held for c in p.content_changes],
        )
        self.client.text_document_did_change(merged)

    def _edit(self, uri: str, edits: Any) -> None:
        order = sorted(
            range(len(edits)),
            key=lambda i: (edits[i].range.start.line, edits[i].range.start.character, i),
        )
        self.change(
            uri,
            [
                T.TextDocumentContentChangePartial(edits[i].range, edits[i].new_text)
                for i in reversed(order)
            ],
        )

    def change(self, uri: str, changes: list[T.TextDocumentContentChangePartial]) -> None:
        """Apply ``changes`` to the buffer (a new version) and send them in a didChange."""
        doc = self._buffer(uri)
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

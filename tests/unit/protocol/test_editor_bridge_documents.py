"""PyglsEditorBridge in process: which documents count as open, and applyEdit answers."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import pytest
from lsprotocol import types as T
from pygls.exceptions import JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.workspace import Workspace

from pi_lsp.edits import Edit, TextChange, WorkspaceChange
from pi_lsp.protocol.editor_bridge import PyglsEditorBridge

CHANGE = WorkspaceChange(
    operations=(TextChange("file:///w/a.py", 1, (Edit(0, 0, 0, 0, "x"),)),), label="pi: edit"
)


def initialized(*documents: tuple[str, str]) -> LanguageServer:
    """A server as it is after ``initialize`` (VS Code-like) and a ``didOpen`` per document."""
    server = LanguageServer("test", "0")
    protocol: Any = server.protocol
    protocol.client_capabilities = T.ClientCapabilities(
        workspace=T.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=T.WorkspaceEditClientCapabilities(document_changes=True),
        )
    )
    protocol._workspace = Workspace(None, position_encoding=T.PositionEncodingKind.Utf16)
    for uri, text in documents:
        protocol._workspace.put_text_document(T.TextDocumentItem(uri, "python", 3, text))
    return server


def answering(server: LanguageServer, answer: concurrent.futures.Future[Any]) -> list[Any]:
    """Make ``workspace_apply_edit`` return ``answer``; the list collects the requests."""
    sent: list[Any] = []

    def send(params: Any, callback: Any = None) -> concurrent.futures.Future[Any]:
        sent.append(params)
        return answer

    server.workspace_apply_edit = send  # type: ignore[method-assign]
    return sent


def test_only_documents_the_client_opened_are_open() -> None:
    server = initialized(("file:///w/a%20b.py", "unsaved"), ("file:///w/x/../c.py", "c"))
    bridge = PyglsEditorBridge(server)
    document = bridge.open_document("/w/a b.py")
    assert document is not None
    assert (document.uri, document.text, document.version) == ("file:///w/a%20b.py", "unsaved", 3)
    assert bridge.open_document("/w/c.py") is not None  # spelled with ".." by the client
    assert bridge.open_document("/w/other.py") is None


def test_before_initialize_nothing_is_open_or_supported() -> None:
    bridge = PyglsEditorBridge(LanguageServer("test", "0"))
    assert bridge.open_document("/w/a.py") is None
    assert not bridge.can_apply_edits
    assert bridge._capabilities is None  # resolved later, once initialize has run


def test_capabilities_are_resolved_once() -> None:
    bridge = PyglsEditorBridge(initialized())
    assert (bridge.can_apply_edits, bridge.document_changes, bridge.create_files) == (
        True,
        True,
        False,
    )
    assert bridge.position_encoding == "utf-16"
    assert bridge._capabilities is bridge.capabilities


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (T.ApplyWorkspaceEditResult(applied=True), (True, None)),
        (T.ApplyWorkspaceEditResult(applied=False, failure_reason="declined"), (False, "declined")),
        ({"applied": False, "failureReason": "as a dict"}, (False, "as a dict")),
    ],
)
async def test_answers_become_outcomes(result: Any, expected: tuple[bool, str | None]) -> None:
    server = initialized()
    answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
    answer.set_result(result)
    sent = answering(server, answer)
    outcome = await PyglsEditorBridge(server).apply_edit(CHANGE)
    assert (outcome.applied, outcome.reason) == expected
    assert sent[0].label == "pi: edit"
    assert sent[0].edit.document_changes[0].text_document.version == 1


async def test_an_error_answer_is_a_refusal() -> None:
    server = initialized()
    answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
    answer.set_exception(JsonRpcInternalError("boom"))
    answering(server, answer)
    outcome = await PyglsEditorBridge(server).apply_edit(CHANGE)
    assert not outcome.applied
    assert "error" in (outcome.reason or "") and "boom" in (outcome.reason or "")


async def test_no_answer_is_a_refusal_and_the_request_stays_answerable() -> None:
    server = initialized()
    answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
    answering(server, answer)
    outcome = await PyglsEditorBridge(server, apply_timeout=0.01).apply_edit(CHANGE)
    assert (outcome.applied, outcome.reason) == (False, "no answer within 0.01 s")
    assert not answer.cancelled()
    answer.set_result(T.ApplyWorkspaceEditResult(applied=True))  # a late answer is harmless


async def test_a_change_the_client_cannot_take_is_refused_without_sending() -> None:
    server = initialized()
    server.protocol.client_capabilities = T.ClientCapabilities(  # type: ignore[attr-defined]
        workspace=T.WorkspaceClientCapabilities(apply_edit=True)
    )
    sent = answering(server, concurrent.futures.Future())
    twice = WorkspaceChange(operations=CHANGE.operations * 2, label="pi: edit")
    outcome = await PyglsEditorBridge(server).apply_edit(twice)
    assert not outcome.applied and "two edit sets" in (outcome.reason or "")
    assert sent == []

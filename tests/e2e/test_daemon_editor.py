"""The daemon with an editor attached: unsaved buffers, applyEdit, permissions, both clients."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types as T

from pi_lsp.devtools.builders import fake_settings, tool_turn
from pi_lsp.devtools.fake_script import Script, Turn
from tests.lsp_editor import NEOVIM_CAPABILITIES, VSCODE_CAPABILITIES, Editor

CAPABILITIES = pytest.mark.parametrize(
    "capabilities", [VSCODE_CAPABILITIES, NEOVIM_CAPABILITIES], ids=["vscode", "neovim"]
)


def open_buffer(editor: Editor, text: str, version: int = 1) -> str:
    return editor.open(editor.root / "calc.py", text, version)


def tool_results(messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e["message"]
        for e in messages["entries"]
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]


EDIT_SCRIPT = Script(
    turns=[
        tool_turn("read", {"path": "calc.py"}),
        tool_turn(
            "edit",
            {
                "path": "calc.py",
                "oldText": "abs(a) + b 🎉",
                "newText": "a + b 🎉",
            },
        ),
        Turn(text="Done."),
    ]
)


@CAPABILITIES
async def test_unsaved_buffer_is_read_and_edited_through_apply_edit(
    start: Any, capabilities: Any
) -> None:
    editor = await start(EDIT_SCRIPT, capabilities=capabilities)
    disk_before = (editor.root / "calc.py").read_text()
    uri = open_buffer(editor, "def add(a, b):\n    return abs(a) + b 🎉  # unsaved\n")
    session = await editor.new_session()
    await editor.prompt(session, "fix it")
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    read, edit = tool_results(messages)
    assert "# unsaved" in read["content"][0]["text"]  # the editor's buffer, not the disk
    assert not edit["isError"], edit["content"]
    assert len(editor.edits) == 1
    sent = editor.edits[0]
    if capabilities.workspace.workspace_edit.document_changes:  # VS Code: versioned
        (change,) = sent.document_changes
        assert change.text_document.uri == uri and change.text_document.version == 1
        assert sent.changes is None
        (text_edit,) = change.edits
    else:  # Neovim: unversioned changes (the version is checked just before sending)
        assert sent.document_changes is None and list(sent.changes) == [uri]
        (text_edit,) = sent.changes[uri]
    assert text_edit.new_text == "" or "abs(" not in text_edit.new_text
    assert (editor.root / "calc.py").read_text() == disk_before  # disk untouched until saved


async def test_rejected_edit_is_a_tool_error_and_nothing_is_overwritten(start: Any) -> None:
    editor = await start(EDIT_SCRIPT)
    editor.mode = "refuse"
    open_buffer(editor, "def add(a, b):\n    return abs(a) + b 🎉\n")
    session = await editor.new_session()
    disk_before = (editor.root / "calc.py").read_text()
    await editor.prompt(session, "fix it")
    messages = await editor.request("pi/session/messages", {"sessionId": session})
    edit = tool_results(messages)[1]
    assert edit["isError"] and "read the file again" in edit["content"][0]["text"].lower()
    assert (editor.root / "calc.py").read_text() == disk_before


async def test_stale_buffer_version_is_refused(start: Any) -> None:
    """The user types while the agent's edit is on its way: the editor refuses the now-stale
    version, the agent gets a tool error, and the user's text is never overwritten."""
    turns = [
        tool_turn("edit", {"path": "calc.py", "oldText": "abs(a)", "newText": "a"}),
        Turn(text="ok"),
    ]
    editor = await start(Script(turns=turns))
    uri = open_buffer(editor, "def add(a, b):\n    return abs(a) + b\n")
    typed = "def add(a, b):\n    return abs(a) + b  # user typing\n"

    def on_apply(params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        editor.client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=typed)],
            )
        )
        (change,) = params.edit.document_changes or []
        assert change.text_document.version == 1  # the version the agent read
        return T.ApplyWorkspaceEditResult(
            applied=False, failure_reason="document version 1 is stale (now 2)"
        )

    editor.on_apply = on_apply
    session = await editor.new_session()
    await editor.prompt(session, "fix it")
    (edit,) = tool_results(await editor.request("pi/session/messages", {"sessionId": session}))
    assert edit["isError"] and "stale" in edit["content"][0]["text"]
    assert len(editor.edits) == 1  # no second attempt that could clobber the user's typing
    assert "# user typing" not in (editor.root / "calc.py").read_text()  # and no disk write


async def _two_bash_prompts(start: Any, first: str, second: str, bash: str) -> tuple[Any, str]:
    """An editor whose model runs ``first``, then ``second`` (one prompt each), with
    ``permissions.bash`` set to ``bash``; returns it and its session after the first prompt."""
    turns = [
        tool_turn("bash", {"command": first}),
        Turn(text="first done"),
        tool_turn("bash", {"command": second}),
        Turn(text="second done"),
    ]
    editor = await start(Script(turns=turns), settings={"permissions": {"bash": bash}})
    session = await editor.new_session()
    await editor.prompt(session, "one")
    return editor, session


async def test_permission_prompts_allow_and_deny(start: Any) -> None:
    editor, session = await _two_bash_prompts(
        start, "echo allowed > out.txt", "echo denied > no.txt", "ask"
    )
    editor.permission_answer = "deny"
    await editor.prompt(session, "two")
    assert (editor.root / "out.txt").read_text() == "allowed\n"
    assert not (editor.root / "no.txt").exists()
    assert [r["kind"] for r in editor.permission_requests] == ["bash", "bash"]
    assert editor.permission_requests[0]["detail"] == "echo allowed > out.txt"
    denied = tool_results(await editor.request("pi/session/messages", {"sessionId": session}))[-1]
    assert denied["isError"] and "did not allow" in denied["content"][0]["text"]


async def test_changed_settings_reach_an_open_session(start: Any) -> None:
    editor, session = await _two_bash_prompts(
        start, "echo one > one.txt", "echo two > two.txt", "allow"
    )
    # an editor sends the whole section again (VS Code's pi.*, Neovim's settings.pi): the
    # connection stays, the permission changes
    changed = fake_settings(editor.fake.base_url, permissions={"bash": "deny"})
    editor.client.workspace_did_change_configuration(
        T.DidChangeConfigurationParams(settings={"pi": changed})
    )
    await editor.request("pi/session/state", {"sessionId": session})  # processed in order
    await editor.prompt(session, "two")
    assert (editor.root / "one.txt").exists() and not (editor.root / "two.txt").exists()
    refused = tool_results(await editor.request("pi/session/messages", {"sessionId": session}))[-1]
    assert refused["isError"] and "permissions.bash" in refused["content"][0]["text"]
    assert editor.permission_requests == []  # deny never asks

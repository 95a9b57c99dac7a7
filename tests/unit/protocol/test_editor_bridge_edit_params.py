"""Client capabilities to flags, and WorkspaceChange to workspace/applyEdit parameters."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import converters
from lsprotocol import types as T

from pi_lsp.devtools.builders import NEOVIM_CAPABILITIES as NEOVIM
from pi_lsp.devtools.builders import VSCODE_CAPABILITIES as VSCODE
from pi_lsp.edits import CreateFile, Edit, TextChange, WorkspaceChange
from pi_lsp.protocol.editor_bridge import EditorCapabilities, apply_edit_params

CONVERTER = converters.get_converter()

CHANGE = WorkspaceChange(
    operations=(
        CreateFile("file:///w/new.py"),
        TextChange("file:///w/new.py", None, (Edit(0, 0, 0, 0, "x\n"),)),
        TextChange("file:///w/a%20b.py", 3, (Edit(1, 2, 1, 4, "yz"),)),
    ),
    label="pi: write",
    annotation="pi: write",
)


def capabilities(raw: dict[str, Any], encoding: object = None) -> EditorCapabilities:
    return EditorCapabilities.resolve(CONVERTER.structure(raw, T.ClientCapabilities), encoding)


def test_vscode_capabilities() -> None:
    assert capabilities(VSCODE, T.PositionEncodingKind.Utf16) == EditorCapabilities(
        apply_edit=True,
        document_changes=True,
        create_files=True,
        change_annotations=True,
        normalizes_line_endings=True,
        position_encoding="utf-16",
    )


def test_neovim_capabilities_have_no_document_changes() -> None:
    assert capabilities(NEOVIM, "utf-8") == EditorCapabilities(
        apply_edit=True, position_encoding="utf-8"
    )


def test_nothing_announced_means_nothing_supported() -> None:
    assert EditorCapabilities.resolve(None) == EditorCapabilities()
    assert EditorCapabilities.resolve(T.ClientCapabilities(), "utf-7").position_encoding == "utf-16"


def test_vscode_gets_versioned_annotated_document_changes() -> None:
    params = apply_edit_params(CHANGE, capabilities(VSCODE))
    wire = CONVERTER.unstructure(params)
    assert wire["label"] == "pi: write"
    assert wire["edit"]["changeAnnotations"] == {
        "pi": {"label": "pi: write", "needsConfirmation": False}
    }
    create, content, edit = wire["edit"]["documentChanges"]
    assert create == {
        "kind": "create",
        "uri": "file:///w/new.py",
        "options": {"overwrite": False, "ignoreIfExists": True},
        "annotationId": "pi",
    }
    assert content["textDocument"] == {"uri": "file:///w/new.py", "version": None}
    assert edit == {
        "textDocument": {"uri": "file:///w/a%20b.py", "version": 3},
        "edits": [
            {
                "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 4}},
                "newText": "yz",
                "annotationId": "pi",
            }
        ],
    }
    assert "changes" not in wire["edit"]


def test_without_annotation_support_edits_are_plain() -> None:
    caps = EditorCapabilities(apply_edit=True, document_changes=True, create_files=True)
    wire = CONVERTER.unstructure(apply_edit_params(CHANGE, caps))
    assert "changeAnnotations" not in wire["edit"]
    assert "annotationId" not in wire["edit"]["documentChanges"][0]
    assert "annotationId" not in wire["edit"]["documentChanges"][2]["edits"][0]


def test_neovim_gets_a_plain_changes_map() -> None:
    change = WorkspaceChange(operations=CHANGE.operations[2:], label="pi: edit", annotation=None)
    wire = CONVERTER.unstructure(apply_edit_params(change, capabilities(NEOVIM)))
    assert wire["edit"] == {
        "changes": {
            "file:///w/a%20b.py": [
                {
                    "range": {
                        "start": {"line": 1, "character": 2},
                        "end": {"line": 1, "character": 4},
                    },
                    "newText": "yz",
                }
            ]
        }
    }


def test_what_a_client_cannot_do_is_refused_before_sending() -> None:
    with pytest.raises(ValueError, match="documentChanges"):
        apply_edit_params(CHANGE, capabilities(NEOVIM))
    no_create = EditorCapabilities(apply_edit=True, document_changes=True)
    with pytest.raises(ValueError, match="cannot create files"):
        apply_edit_params(CHANGE, no_create)
    twice = WorkspaceChange(operations=(CHANGE.operations[2],) * 2, label="pi: edit")
    with pytest.raises(ValueError, match="two edit sets"):
        apply_edit_params(twice, capabilities(NEOVIM))

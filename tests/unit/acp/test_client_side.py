"""The client's side: the session modes' answers to permission questions, the read-only guard."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.acp.client_side import ClientFileSystem, by_mode
from pi_lsp.agent.permissions import PermissionRequest
from pi_lsp.tools import ToolError


def _request(kind: str) -> PermissionRequest:
    return PermissionRequest(kind, "write", "c1", "/elsewhere/x", "/p")  # type: ignore[arg-type]


def test_each_mode_answers_what_it_decides_and_asks_the_rest() -> None:
    kinds = ("bash", "writeOutsideWorkspace", "writeProtected", "readSecret")
    answers = {
        mode: [by_mode(mode, _request(k)) for k in kinds]
        for mode in ("ask", "allow_edits", "read_only")
    }
    assert answers == {
        "ask": [None, None, None, None],
        "allow_edits": [None, "allowOnce", None, None],
        "read_only": ["deny", "deny", "deny", None],
    }


def test_a_guarded_file_system_writes_nothing(tmp_path: Path) -> None:
    fs = ClientFileSystem(
        None,  # type: ignore[arg-type]  # never reached: nothing goes to the client
        "s1",
        str(tmp_path),
        read_through_client=False,
        write_through_client=False,
        guard=lambda what: f"no: {what}",
    )
    target = tmp_path / "new.txt"
    with pytest.raises(ToolError, match="no: writing"):
        asyncio.run(fs.write_text(str(target), "x"))
    with pytest.raises(ToolError, match="no: creating the folder"):
        asyncio.run(fs.mkdir(str(tmp_path / "sub")))
    assert not target.exists() and not (tmp_path / "sub").exists()

from __future__ import annotations

import pytest

from pi_lsp.tools import ToolError
from tests.unit.tools.conftest import Workspace


async def test_creates_parents_and_counts_utf16_units(ws: Workspace) -> None:
    result = await ws.run("write", {"path": "deep/er/f.txt", "content": "héllo 😀\n"})
    assert result.text == "Successfully wrote 9 bytes to deep/er/f.txt"
    assert result.details is None
    assert ws.read("deep/er/f.txt") == "héllo 😀\n".encode()


async def test_overwrites_without_touching_line_endings(ws: Workspace) -> None:
    ws.write("f.txt", "old")
    await ws.run("write", {"path": "f.txt", "content": "a\r\nb\n"})
    assert ws.read("f.txt") == b"a\r\nb\n"


async def test_absolute_path_and_at_prefix(ws: Workspace) -> None:
    target = ws.root / "abs.txt"
    result = await ws.run("write", {"path": f"@{target}", "content": ""})
    assert result.text == f"Successfully wrote 0 bytes to @{target}"
    assert target.read_bytes() == b""


async def test_lone_surrogate_is_written_as_replacement_character(ws: Workspace) -> None:
    await ws.run("write", {"path": "s.txt", "content": "a\ud800b"})
    assert ws.read("s.txt") == "a\ufffdb".encode()


async def test_parent_is_a_file(ws: Workspace) -> None:
    ws.write("file", "x")
    with pytest.raises(ToolError) as error:
        await ws.run("write", {"path": "file/child.txt", "content": "x"})
    assert str(error.value).startswith("EEXIST: file already exists, mkdir ")

from __future__ import annotations

import pytest

from pi_lsp.tools import ToolError
from tests.unit.tools.conftest import Workspace


async def test_ls_lists_everything_case_insensitively(ws: Workspace) -> None:
    for rel in ["b.txt", "A.txt", ".dot", "Zed/x", "c/y"]:
        ws.write(rel, "")
    (ws.root / "dangling").symlink_to(ws.root / "missing")
    result = await ws.run("ls", {})
    assert result.text == ".dot\nA.txt\nb.txt\nc/\nZed/"
    assert result.details is None


async def test_ls_limit_and_errors(ws: Workspace) -> None:
    for name in "abcd":
        ws.write(name, "")
    result = await ws.run("ls", {"limit": 3})
    assert result.text == "a\nb\nc\n\n[3 entries limit reached. Use limit=6 for more]"
    assert result.details == {"entryLimitReached": 3}
    (ws.root / "empty").mkdir()
    assert (await ws.run("ls", {"path": "empty"})).text == "(empty directory)"
    with pytest.raises(ToolError) as missing:
        await ws.run("ls", {"path": "nope"})
    assert str(missing.value) == f"Path not found: {ws.root / 'nope'}"
    with pytest.raises(ToolError) as not_dir:
        await ws.run("ls", {"path": "a"})
    assert str(not_dir.value) == f"Not a directory: {ws.root / 'a'}"


async def test_ls_byte_limit(ws: Workspace) -> None:
    for i in range(600):
        ws.write(f"{'e' * 99}{i:03d}", "")
    result = await ws.run("ls", {"limit": 1000})
    assert result.text.endswith("\n\n[50.0KB limit reached]")
    assert result.details is not None
    assert set(result.details) == {"truncation"}

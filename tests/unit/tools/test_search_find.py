from __future__ import annotations

import pytest

from pi_lsp.tools import ToolError
from tests.unit.tools.conftest import Workspace


@pytest.fixture
def project(ws: Workspace) -> Workspace:
    for rel in ["src/a.ts", "src/b.spec.ts", "src/deep/c.spec.ts", "lib/d.ts", ".env", "x.json"]:
        ws.write(rel, "")
    ws.write("node_modules/m/index.ts", "")
    ws.write(".gitignore", "node_modules/\n")
    ws.write(".git/config", "")
    return ws


async def test_find_by_name_glob(project: Workspace) -> None:
    result = await project.run("find", {"pattern": "*.ts"})
    assert result.text == "lib/d.ts\nsrc/a.ts\nsrc/b.spec.ts\nsrc/deep/c.spec.ts"
    assert result.details is None


async def test_find_by_path_glob_and_directories(project: Workspace) -> None:
    spec = await project.run("find", {"pattern": "src/**/*.spec.ts"})
    assert spec.text == "src/b.spec.ts\nsrc/deep/c.spec.ts"
    anywhere = await project.run("find", {"pattern": "**/*.json"})
    assert anywhere.text == "x.json"
    dirs = await project.run("find", {"pattern": "deep"})
    assert dirs.text == "src/deep/"
    hidden = await project.run("find", {"pattern": ".*"})
    assert hidden.text == ".env\n.gitignore"


async def test_find_in_a_sub_directory(project: Workspace) -> None:
    result = await project.run("find", {"pattern": "*.ts", "path": "src"})
    assert result.text == "a.ts\nb.spec.ts\ndeep/c.spec.ts"


async def test_find_limit(project: Workspace) -> None:
    result = await project.run("find", {"pattern": "*", "limit": 2})
    assert result.text == (
        ".env\n.gitignore\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert result.details == {"resultLimitReached": 2}


async def test_find_byte_limit(ws: Workspace) -> None:
    for i in range(600):
        ws.write(f"{'n' * 95}{i:04d}.txt", "")
    result = await ws.run("find", {"pattern": "*.txt"})
    assert result.text.endswith("\n\n[50.0KB limit reached]")
    assert result.details is not None
    assert result.details["truncation"]["outputLines"] == 492  # 104 bytes a line


async def test_find_nothing_and_errors(project: Workspace) -> None:
    assert (
        await project.run("find", {"pattern": "*.rs"})
    ).text == "No files found matching pattern"
    with pytest.raises(ToolError) as missing:
        await project.run("find", {"pattern": "*", "path": "nope"})
    assert str(missing.value) == f"Path not found: {project.root / 'nope'}"
    with pytest.raises(ToolError) as file:
        await project.run("find", {"pattern": "*", "path": "x.json"})
    assert (
        str(file.value)
        == f"[fd error]: Search path '{project.root / 'x.json'}' is not a directory."
    )

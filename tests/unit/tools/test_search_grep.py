from __future__ import annotations

import asyncio

import pytest

from pi_lsp.tools import ToolError
from tests.unit.tools.conftest import Workspace


@pytest.fixture
def project(ws: Workspace) -> Workspace:
    ws.write("src/app.py", "import os\n\ndef main():\n    print('TODO: fix')\n    return 0\n")
    ws.write("src/util.py", "# todo later\nVALUE = 1\n")
    ws.write("README.md", "A TODO list\r\nsecond line\r\n")
    ws.write(".hidden/conf", "TODO hidden\n")
    ws.write("build/out.py", "TODO generated\n")
    ws.write("data.bin", b"TODO\0binary")
    ws.write(".gitignore", "build/\n")
    ws.write(".git/HEAD", "TODO in git\n")
    return ws


async def test_matches_with_relative_paths_in_name_order(project: Workspace) -> None:
    result = await project.run("grep", {"pattern": "TODO"})
    assert (
        result.text
        == ".hidden/conf:1: TODO hidden\nREADME.md:1: A TODO list\nsrc/app.py:4:     print('TODO: fix')"
    )
    assert result.details is None


async def test_ignore_case_literal_and_glob(project: Workspace) -> None:
    result = await project.run("grep", {"pattern": "todo", "ignoreCase": True, "glob": "*.py"})
    assert result.text == "src/app.py:4:     print('TODO: fix')\nsrc/util.py:1: # todo later"
    literal = await project.run("grep", {"pattern": "main()", "literal": True})
    assert literal.text == "src/app.py:3: def main():"
    excluded = await project.run("grep", {"pattern": "TODO", "glob": "!src"})
    assert excluded.text == ".hidden/conf:1: TODO hidden\nREADME.md:1: A TODO list"


async def test_context_blocks_repeat_like_pi(project: Workspace) -> None:
    result = await project.run("grep", {"pattern": "print|return", "path": "src", "context": 1})
    assert result.text.split("\n") == [
        "app.py-3- def main():",
        "app.py:4:     print('TODO: fix')",
        "app.py-5-     return 0",
        "app.py-4-     print('TODO: fix')",
        "app.py:5:     return 0",
        "app.py-6- ",
    ]


async def test_single_file_shows_its_name(project: Workspace) -> None:
    result = await project.run("grep", {"pattern": "line", "path": "README.md"})
    assert result.text == "README.md:2: second line"
    ignored_but_explicit = await project.run("grep", {"pattern": "TODO", "path": "build/out.py"})
    assert ignored_but_explicit.text == "out.py:1: TODO generated"


async def test_no_matches(project: Workspace) -> None:
    result = await project.run("grep", {"pattern": "nothing-like-this"})
    assert result.text == "No matches found"
    assert result.details is None


async def test_match_limit(ws: Workspace) -> None:
    ws.write("many.txt", "".join(f"hit {i}\n" for i in range(1, 8)))
    result = await ws.run("grep", {"pattern": "hit", "limit": 3})
    assert result.text == (
        "many.txt:1: hit 1\nmany.txt:2: hit 2\nmany.txt:3: hit 3\n\n"
        "[3 matches limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 3}


async def test_default_limit_is_one_hundred(ws: Workspace) -> None:
    ws.write("many.txt", "x\n" * 150)
    result = await ws.run("grep", {"pattern": "x"})
    assert result.text.count("\n") == 99 + 2
    assert result.details == {"matchLimitReached": 100}


async def test_long_lines_and_byte_limit(ws: Workspace) -> None:
    ws.write("long.txt", ("m" + "-" * 999 + "\n") * 120)
    result = await ws.run("grep", {"pattern": "m", "limit": 200})
    body, notice = result.text.rsplit("\n\n", 1)
    assert notice == (
        "[50.0KB limit reached. Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    first = body.split("\n")[0]
    assert first == "long.txt:1: m" + "-" * 499 + "... [truncated]"
    assert result.details is not None
    assert result.details["linesTruncated"] is True
    assert result.details["truncation"]["truncatedBy"] == "bytes"
    assert result.details["truncation"]["maxLines"] == 2**53 - 1


async def test_errors(project: Workspace) -> None:
    with pytest.raises(ToolError) as missing:
        await project.run("grep", {"pattern": "x", "path": "nope"})
    assert str(missing.value) == f"Path not found: {project.root / 'nope'}"
    with pytest.raises(ToolError) as bad:
        await project.run("grep", {"pattern": "(unclosed"})
    assert str(bad.value).startswith("regex parse error:\n    (unclosed\nerror: ")


async def test_line_anchors_work_per_line(ws: Workspace) -> None:
    ws.write("a.txt", "alpha\nbeta\n")
    result = await ws.run("grep", {"pattern": "^beta$"})
    assert result.text == "a.txt:2: beta"
    lookahead = await ws.run("grep", {"pattern": "alpha(?!\\n)"})
    assert lookahead.text == "a.txt:1: alpha"


async def test_abort(project: Workspace) -> None:
    cancel = asyncio.Event()
    cancel.set()
    with pytest.raises(ToolError) as error:
        await project.run("grep", {"pattern": "x"}, cancel=cancel)
    assert str(error.value) == "Operation aborted"

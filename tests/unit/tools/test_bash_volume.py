"""bash under a flood of output: coalesced updates, capped full-output files, removed files.

Before, every pipe chunk sent a partial result carrying the 50 KB tail (100 MB of output made
~200 MB of events), and each command's ``pi-bash-*.log`` kept all of its output forever.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pi_lsp.tools import BashTool, ShellSettings, ToolResult, close_tools, create_tools
from pi_lsp.tools.bash import UPDATE_INTERVAL
from pi_lsp.tools.shell import FILE_LIMIT

HUNDRED_MB = 100 * 1024 * 1024


def bash(tmp_path: Path, **limits: int) -> BashTool:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    settings = ShellSettings(temp_dir=str(tmp_path / "tmp"), **limits)
    tool = create_tools(str(tmp_path), shell=settings)["bash"]
    assert isinstance(tool, BashTool)
    return tool


async def test_100_mb_of_output_sends_few_small_updates(tmp_path: Path) -> None:
    tool = bash(tmp_path)
    updates: list[ToolResult] = []
    began = time.monotonic()
    result = await tool.execute(
        {"command": f"yes 'a line of output' | head -c {HUNDRED_MB}"}, on_update=updates.append
    )
    elapsed = time.monotonic() - began
    assert not result.is_error
    sent = sum(len(json.dumps(list(u.content))) for u in updates)
    assert sent < HUNDRED_MB / 20, f"{len(updates)} updates, {sent} bytes"
    # At most one update per interval (plus the first and the last one).
    assert len(updates) <= elapsed / UPDATE_INTERVAL + 2, (len(updates), elapsed)
    assert updates[-1].text == result.text.split("\n\n[Showing")[0]  # the last one is current


async def test_the_full_output_file_is_capped(tmp_path: Path) -> None:
    tool = bash(tmp_path)
    result = await tool.execute({"command": f"head -c {HUNDRED_MB} /dev/zero | tr '\\0' 'x'"})
    path = result.details["fullOutputPath"] if result.details else None
    assert path is not None and os.path.getsize(path) == FILE_LIMIT
    assert f"Full output: {path} (its first 16.0MB only)" in result.text
    assert result.details and result.details["truncation"]["totalBytes"] == HUNDRED_MB


async def test_full_output_files_are_bounded_in_total_and_removed_with_the_session(
    tmp_path: Path,
) -> None:
    mib = 1024 * 1024
    tool = bash(tmp_path, full_output_limit=mib, full_output_total=3 * mib)
    paths: list[str] = []
    for _ in range(5):
        result = await tool.execute({"command": f"head -c {2 * mib} /dev/zero | tr '\\0' 'y'"})
        assert result.details is not None
        paths.append(result.details["fullOutputPath"])
    kept = [p for p in paths if os.path.exists(p)]
    assert kept == paths[-3:]  # the oldest went first; 3 MB in all
    assert sum(os.path.getsize(p) for p in kept) <= 3 * mib
    close_tools({"bash": tool})
    assert list((tmp_path / "tmp").iterdir()) == []

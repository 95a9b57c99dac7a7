"""Tools read regular files only, up to a limit: FIFOs, devices and huge files are quick errors.

Before, ``read`` of a FIFO blocked the daemon for good (``open`` waits for a writer), ``read
/dev/zero`` grew without end, and grep or the ``.gitignore`` loader hung on a FIFO the same way.
Every test here runs under a timeout, so a hang fails instead of stalling the suite.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pi_lsp.tools import ToolError
from pi_lsp.tools.files import MAX_IMAGE_BYTES
from pi_lsp.tools.fs import MAX_READ_BYTES
from tests.unit.tools.conftest import Workspace

QUICK = 10.0
"""Seconds: far more than any of these needs; a hang is what it catches."""


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


async def read_error(ws: Workspace, path: str, tool: str = "read") -> str:
    args = {"path": path} if tool == "read" else {"path": path, "oldText": "a", "newText": "b"}
    with pytest.raises(ToolError) as caught:
        await asyncio.wait_for(ws.run(tool, args), QUICK)
    return caught.value.message


async def test_read_of_a_fifo_is_an_error_not_a_hang(ws: Workspace) -> None:
    fifo(ws.root / "pipe")
    message = await read_error(ws, "pipe")
    assert message == f"Cannot read {ws.root / 'pipe'}: it is a FIFO, not a regular file."


async def test_read_of_devices_and_the_protocol_stream_is_an_error(ws: Workspace) -> None:
    assert "a character device" in await read_error(ws, "/dev/zero")
    assert "a character device" in await read_error(ws, "/dev/null")
    os.symlink("/dev/zero", ws.root / "zeros")  # a link to a device is no better
    assert "a character device" in await read_error(ws, "zeros")
    read_fd, write_fd = os.pipe()  # what /dev/stdin is for the daemon: the editor's pipe
    try:
        message = await read_error(ws, f"/proc/self/fd/{read_fd}")
        assert "a FIFO, not a regular file" in message
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_edit_of_a_fifo_is_an_error(ws: Workspace) -> None:
    fifo(ws.root / "pipe")
    assert "a FIFO, not a regular file" in await read_error(ws, "pipe", tool="edit")


async def test_a_file_over_the_limit_is_refused_before_reading(ws: Workspace) -> None:
    big = ws.root / "big.log"
    with open(big, "wb") as handle:  # sparse: costs no disk
        handle.truncate(MAX_READ_BYTES + 1)
    message = await read_error(ws, "big.log")
    assert message.startswith(f"Cannot read {big}: it is larger than 32.0MB")
    assert "head, tail, sed -n" in message
    exact = ws.root / "exact.log"
    with open(exact, "wb") as handle:
        handle.truncate(1000)
    result = await ws.run("read", {"path": "exact.log"})
    assert not result.is_error


async def test_an_image_over_the_limit_is_refused(ws: Workspace) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + b"\0" * (MAX_IMAGE_BYTES)
    ws.write("huge.png", png)
    message = await read_error(ws, "huge.png")
    assert "the image is" in message and "more than the 20.0MB" in message


async def test_grep_skips_a_fifo_and_a_fifo_gitignore(ws: Workspace) -> None:
    ws.write("a.txt", "needle\n")
    fifo(ws.root / "pipe.txt")
    fifo(ws.root / ".gitignore")
    result = await asyncio.wait_for(ws.run("grep", {"pattern": "needle"}), QUICK)
    assert result.text.startswith("a.txt:1: needle")
    found = await asyncio.wait_for(ws.run("find", {"pattern": "*.txt"}), QUICK)
    assert "a.txt" in found.text

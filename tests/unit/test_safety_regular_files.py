"""safety's reads: regular files only, never past the limit, in a worker thread when asked.

The tools' behaviour on FIFOs, devices and huge files is tested in
tests/unit/tools/test_fs_special_files.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.safety import FileTooLargeError, NotRegularFileError, read_regular, read_regular_async


def test_read_regular_never_reads_past_the_limit_of_a_growing_file(tmp_path: Path) -> None:
    # /proc files say size 0 and then deliver bytes: the limit holds on what is read.
    environ = Path("/proc/self/status")
    with pytest.raises(FileTooLargeError):
        read_regular(str(environ), 10)
    assert read_regular(str(environ), 1 << 20).startswith(b"Name:")
    with pytest.raises(NotRegularFileError):
        read_regular("/dev/zero", 1 << 20)
    with pytest.raises(IsADirectoryError):
        read_regular(str(tmp_path), 10)


async def test_read_regular_async_runs_off_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "a"
    path.write_bytes(b"x" * 100)
    assert await read_regular_async(str(path), 100) == b"x" * 100
    with pytest.raises(FileTooLargeError):
        await read_regular_async(str(path), 99)

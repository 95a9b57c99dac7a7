"""Tools work over any FileSystem: an in-memory one stands in for the editor-backed one."""

from __future__ import annotations

import errno
import posixpath

import pytest

from pi_lsp.tools import FileStat, FileSystem, LocalFileSystem, ToolError
from pi_lsp.tools.edit import EditTool
from pi_lsp.tools.files import LsTool, ReadTool, WriteTool


class MemoryFileSystem:
    """Files in a dict; what an editor buffer store looks like to the tools."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = dict(files)
        self.writes: list[str] = []
        self.read_only: set[str] = set()

    def _dirs(self) -> set[str]:
        dirs = {"/"}
        for path in self.files:
            parent = posixpath.dirname(path)
            while parent not in dirs:
                dirs.add(parent)
                parent = posixpath.dirname(parent)
        return dirs

    async def read_bytes(self, path: str) -> bytes:
        if path not in self.files:
            raise FileNotFoundError(errno.ENOENT, "missing", path)
        return self.files[path].encode()

    async def read_text(self, path: str) -> str:
        return (await self.read_bytes(path)).decode()

    async def write_text(self, path: str, text: str) -> None:
        if path in self.read_only:
            raise ToolError(f"The editor's copy of {path} changed; read it again")
        self.files[path] = text
        self.writes.append(path)

    async def exists(self, path: str) -> bool:
        return path in self.files or path in self._dirs()

    async def stat(self, path: str) -> FileStat:
        if path in self.files:
            return FileStat(kind="file", size=len(self.files[path]), mtime=0.0)
        if path in self._dirs():
            return FileStat(kind="directory", size=0, mtime=0.0)
        raise FileNotFoundError(errno.ENOENT, "missing", path)

    async def access(self, path: str, *, write: bool = False) -> bool:
        return path in self.files

    async def list_dir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix) :].split("/")[0] for p in [*self.files, *self._dirs()]}
        return sorted(name for name in names if name and prefix != "/" + name)

    async def mkdir(self, path: str) -> None:
        return None


def test_both_implementations_satisfy_the_protocol() -> None:
    assert isinstance(LocalFileSystem(), FileSystem)
    assert isinstance(MemoryFileSystem({}), FileSystem)


async def test_read_edit_write_ls_never_touch_the_disk() -> None:
    fs = MemoryFileSystem({"/ws/src/a.py": "x = 1\n"})
    read = await ReadTool("/ws", fs).execute({"path": "src/a.py"})
    assert read.text == "x = 1\n"
    edit = await EditTool("/ws", fs).execute(
        {"path": "src/a.py", "oldText": "x = 1", "newText": "x = 2"}
    )
    assert edit.details == {"diff": "-1 x = 1\n+1 x = 2", "firstChangedLine": 1}
    await WriteTool("/ws", fs).execute({"path": "src/b.py", "content": "y"})
    assert fs.files == {"/ws/src/a.py": "x = 2\n", "/ws/src/b.py": "y"}
    listing = await LsTool("/ws", fs).execute({"path": "src"})
    assert listing.text == "a.py\nb.py"


async def test_a_file_system_error_reaches_the_model_verbatim() -> None:
    fs = MemoryFileSystem({"/ws/a.py": "x = 1\n"})
    fs.read_only.add("/ws/a.py")
    with pytest.raises(ToolError) as error:
        await EditTool("/ws", fs).execute({"path": "a.py", "oldText": "1", "newText": "2"})
    assert str(error.value) == "The editor's copy of /ws/a.py changed; read it again"
    assert fs.files["/ws/a.py"] == "x = 1\n"


async def test_write_permission_error_reads_like_node() -> None:
    class Denied(MemoryFileSystem):
        async def write_text(self, path: str, text: str) -> None:
            raise PermissionError(errno.EACCES, "denied", path)

    with pytest.raises(ToolError) as error:
        await WriteTool("/ws", Denied({})).execute({"path": "f.txt", "content": "x"})
    assert str(error.value) == "EACCES: permission denied, open '/ws/f.txt'"


async def test_edit_of_an_unwritable_or_missing_file_is_not_found() -> None:
    fs = MemoryFileSystem({})
    with pytest.raises(ToolError) as error:
        await EditTool("/ws", fs).execute({"path": "gone.py", "oldText": "a", "newText": "b"})
    assert str(error.value) == "File not found: gone.py"

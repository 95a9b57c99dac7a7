from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pi_lsp.tools import BashTool, ShellSettings, ToolError, ToolResult
from tests.unit.tools.conftest import Workspace


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def wait_gone(pid: int) -> bool:
    for _ in range(200):  # a bound, not a timing assertion: SIGKILL needs a scheduler tick
        if not alive(pid):
            return True
        await asyncio.sleep(0.025)
    return False


async def wait_for_file(path: Path) -> str:
    for _ in range(400):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.025)
    raise AssertionError(f"{path} never appeared")


async def test_output_and_working_directory(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "pwd; echo err >&2"})
    assert result == ToolResult.of_text(f"{ws.root}\nerr\n")


async def test_no_output(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "true"})
    assert result.text == "(no output)"
    assert not result.is_error


async def test_non_zero_exit_is_an_error_result_with_output(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "echo partial; exit 7"})
    assert result == ToolResult.of_text(
        "partial\n\n\nCommand exited with code 7", {}, is_error=True
    )
    silent = await ws.run("bash", {"command": "exit 1"})
    assert silent.text == "(no output)\n\nCommand exited with code 1"


async def test_timeout_kills_the_command(ws: Workspace) -> None:
    result = await ws.run(
        "bash", {"command": "echo $$ > shell.pid; echo started; sleep 30", "timeout": 0.5}
    )
    assert result.is_error
    assert result.text == "started\n\n\nCommand timed out after 0.5 seconds"
    assert await wait_gone(int((ws.root / "shell.pid").read_text()))


async def test_abort_kills_the_whole_process_tree(ws: Workspace) -> None:
    command = (
        "echo $$ > shell.pid; "
        "bash -c 'sleep 300 & echo $! > grandchild.pid; wait' & "
        "echo $! > child.pid; wait"
    )
    cancel = asyncio.Event()
    task = asyncio.create_task(ws.run("bash", {"command": command}, cancel=cancel))
    pids = [
        int(await wait_for_file(ws.root / name))
        for name in ("shell.pid", "child.pid", "grandchild.pid")
    ]
    assert all(alive(pid) for pid in pids)
    cancel.set()
    result = await task
    assert result == ToolResult.of_text("Command aborted", {}, is_error=True)
    for pid in pids:
        assert await wait_gone(pid), f"process {pid} survived the abort"


async def test_cancelling_the_task_also_kills_the_tree(ws: Workspace) -> None:
    task = asyncio.create_task(ws.run("bash", {"command": "sleep 300 & echo $! > bg.pid; wait"}))
    pid = int(await wait_for_file(ws.root / "bg.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(pid)


async def test_cancelling_while_the_output_pipe_connects_kills_the_tree(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command runs from the moment it is spawned: a cancel that arrives before the output
    # pipe is connected (a loaded machine makes that window long) must kill it too.
    loop = asyncio.get_running_loop()
    connecting = asyncio.Event()

    async def never_connected(*_: object) -> None:
        connecting.set()
        await asyncio.sleep(3600)

    monkeypatch.setattr(loop, "connect_read_pipe", never_connected)
    task = asyncio.create_task(ws.run("bash", {"command": "sleep 300 & echo $! > bg.pid; wait"}))
    pid = int(await wait_for_file(ws.root / "bg.pid"))
    await connecting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(pid)


async def test_already_aborted(ws: Workspace) -> None:
    cancel = asyncio.Event()
    cancel.set()
    result = await ws.run("bash", {"command": "touch ran"}, cancel=cancel)
    assert result.text == "Command aborted"
    assert not (ws.root / "ran").exists()


async def test_streams_partial_output(ws: Workspace) -> None:
    updates: list[ToolResult] = []
    go = ws.root / "go"

    def on_update(update: ToolResult) -> None:
        updates.append(update)
        if "one" in update.text:
            go.touch()

    command = "echo one; while [ ! -f go ]; do sleep 0.01; done; echo two"
    result = await ws.tools["bash"].execute({"command": command}, on_update=on_update)
    assert result.text == "one\ntwo\n"
    assert updates[0] == ToolResult.of_text("one\n", {})
    assert updates[-1].text == "one\ntwo\n"


async def test_line_limit_with_full_output_file(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "seq 1 30000"})
    assert result.details is not None
    path = result.details["fullOutputPath"]
    assert Path(path).parent == ws.temp_dir
    assert (
        Path(path).name.startswith("pi-bash-") and len(Path(path).name) == len("pi-bash-.log") + 16
    )
    body, notice = result.text.rsplit("\n\n", 1)
    assert notice == f"[Showing lines 28001-30000 of 30000. Full output: {path}]"
    assert body == "\n".join(str(i) for i in range(28001, 30001))
    assert Path(path).read_text() == "".join(f"{i}\n" for i in range(1, 30001))
    truncation = result.details["truncation"]
    assert truncation["truncatedBy"] == "lines"
    assert (truncation["totalLines"], truncation["outputLines"]) == (30000, 2000)
    Path(path).unlink()


async def test_byte_limit_notice(ws: Workspace) -> None:
    command = "for i in $(seq 1 1000); do printf '%099d\\n' $i; done"
    result = await ws.run("bash", {"command": command})
    assert result.details is not None
    path = result.details["fullOutputPath"]
    assert result.text.endswith(
        f"\n\n[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: {path}]"
    )
    assert result.details["truncation"]["outputBytes"] == 51199
    Path(path).unlink()


async def test_partial_last_line_notice(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "head -c 60000 /dev/zero | tr '\\0' a"})
    assert result.details is not None
    path = result.details["fullOutputPath"]
    assert result.text == "a" * 51200 + (
        f"\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {path}]"
    )
    assert result.details["truncation"]["lastLinePartial"] is True
    Path(path).unlink()


async def test_line_numbers_count_the_whole_output(ws: Workspace) -> None:
    result = await ws.run("bash", {"command": "seq 1 200000"})
    assert result.details is not None
    path = result.details["fullOutputPath"]
    assert result.text.endswith(f"[Showing lines 198001-200000 of 200000. Full output: {path}]")
    assert result.details["truncation"]["totalBytes"] == os.path.getsize(path)
    Path(path).unlink()


async def test_small_output_writes_no_file(ws: Workspace) -> None:
    await ws.run("bash", {"command": "seq 1 100"})
    assert list(ws.temp_dir.iterdir()) == []


async def test_agent_bin_is_first_on_path_and_prefix_runs_first(tmp_path: Path) -> None:
    settings = ShellSettings(agent_dir=str(tmp_path / "agent"), command_prefix="X=prefixed")
    result = await BashTool(str(tmp_path), settings).execute({"command": 'echo "$X ${PATH%%:*}"'})
    assert result.text == f"prefixed {tmp_path / 'agent' / 'bin'}\n"


async def test_custom_shell(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path), ShellSettings(shell_path="/bin/sh"))
    assert (await tool.execute({"command": "echo sh"})).text == "sh\n"
    missing = BashTool(str(tmp_path), ShellSettings(shell_path="/no/shell", agent_dir="/a"))
    with pytest.raises(ToolError) as error:
        await missing.execute({"command": "true"})
    assert str(error.value) == (
        "Custom shell path not found: /no/shell\nPlease update shellPath in /a/settings.json"
    )


async def test_missing_working_directory(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    with pytest.raises(ToolError) as error:
        await BashTool(str(gone)).execute({"command": "true"})
    assert (
        str(error.value)
        == f"Working directory does not exist: {gone}\nCannot execute bash commands."
    )

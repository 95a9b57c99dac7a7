"""The ``bash`` tool: run a command, stream its output, report it tail-truncated the way pi does.

``<shell> -c <command>`` runs in the session cwd in a new session (own process group), stdout and
stderr on one pipe. Output streams to ``on_update`` as partial results; the final text is the
last 2000 lines / 50 KB with pi's notice and the full-output file (capped, removed with the
session: ``shell``). Partial results are coalesced to one per ``UPDATE_INTERVAL``. A
non-zero exit is an error result (output, then ``Command exited with code N``). Abort and
timeout kill the whole process group and report ``Command aborted`` / ``Command timed out after
N seconds``; so does cancelling the task running the tool, so no process outlives it.
Processes a command leaves running in the background on a normal exit are left alone, as pi
does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from typing import Literal, TypeVar

from pydantic import Field

from pi_lsp.javascript import js_number
from pi_lsp.tools.base import (
    Tool,
    ToolError,
    ToolInvocation,
    ToolParams,
    ToolResult,
    UpdateCallback,
    text_block,
)
from pi_lsp.tools.shell import (
    OutputCollector,
    OutputFiles,
    ShellSettings,
    kill_process_tree,
    resolve_shell,
    shell_env,
)
from pi_lsp.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    limits_text,
)

logger = logging.getLogger(__name__)

Outcome = Literal["exited", "aborted", "timeout"]
_DRAIN_STEP = 0.05
_DRAIN_STEPS = 20
"""After the shell exits, read on while output keeps coming, for at most one second: a process
it left in the background may hold the pipe open."""
UPDATE_INTERVAL = 0.1
"""Seconds between two streamed partial results of one command."""


class BashParams(ToolParams):
    """Arguments of ``bash``."""

    command: str = Field(description="Bash command to execute")
    timeout: float | None = Field(
        default=None, description="Timeout in seconds (optional, no default timeout)"
    )


class _PipeReader(asyncio.Protocol):
    """Feeds the output pipe into the collector, and partial results to the update callback.

    Updates are coalesced: the first chunk is reported at once, later ones at most every
    ``UPDATE_INTERVAL`` seconds (a trailing update covers the last chunks). Each update carries
    the 50 KB tail, so one per chunk turned 100 MB of output into ~200 MB of events.
    """

    def __init__(self, on_data: UpdateCallback | None, collector: OutputCollector) -> None:
        self._on_data = on_data
        self._collector = collector
        self._loop = asyncio.get_running_loop()
        self._last = -UPDATE_INTERVAL
        self._pending: asyncio.TimerHandle | None = None
        self.closed: asyncio.Future[None] = self._loop.create_future()

    def data_received(self, data: bytes) -> None:
        self._collector.append(data)
        if self._on_data is None or self._pending is not None:
            return
        wait = self._last + UPDATE_INTERVAL - self._loop.time()
        if wait <= 0:
            self._update()
        else:
            self._pending = self._loop.call_later(wait, self._update)

    def _update(self) -> None:
        self._pending = None
        self._last = self._loop.time()
        if self._on_data is None:
            return
        try:
            self._on_data(partial_result(self._collector))
        except Exception:
            logger.exception("bash on_update callback failed")

    def stop_updates(self) -> None:
        """Send the update still waiting, then no more (the final result follows)."""
        if self._pending is not None:
            self._pending.cancel()
            self._update()
        self._on_data = None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def partial_result(collector: OutputCollector) -> ToolResult:
    """pi's streaming update: the tail so far, truncation and file details when present."""
    cut = collector.snapshot()
    details: dict[str, object] = {}
    if cut.truncated:
        details["truncation"] = cut.to_details()
    if collector.full_output_path is not None:
        details["fullOutputPath"] = collector.full_output_path
    return ToolResult(content=[text_block(cut.content)], details=details)


class BashTool(Tool[BashParams]):
    """pi's ``bash``."""

    name = "bash"
    summary = "Execute bash commands (ls, grep, find, etc.)"
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. "
        f"Output is truncated to last {limits_text(f'{DEFAULT_MAX_LINES} lines')}. "
        "If truncated, full output "
        "is saved to a temp file. Optionally provide a timeout in seconds."
    )
    params_model = BashParams

    def __init__(self, cwd: str, settings: ShellSettings | None = None) -> None:
        super().__init__(cwd)
        self.settings = settings or ShellSettings()
        self.output_files = OutputFiles(
            self.settings.full_output_limit, self.settings.full_output_total
        )
        """This session's full-output files (removed by :meth:`close`)."""

    def close(self) -> None:
        """Remove the session's full-output files (the session closed)."""
        self.output_files.remove_all()

    async def run(self, params: BashParams, call: ToolInvocation) -> ToolResult:
        """Run the command to its end, abort or timeout."""
        prefix = self.settings.command_prefix
        command = f"{prefix}\n{params.command}" if prefix else params.command
        if call.aborted:
            return ToolResult.of_text("Command aborted", {}, is_error=True)
        if not os.path.exists(self.cwd):
            raise ToolError(
                f"Working directory does not exist: {self.cwd}\nCannot execute bash commands."
            )
        collector = OutputCollector(self.settings.temp_dir, self.output_files)
        try:
            outcome, code = await self._spawn_and_wait(command, params, collector, call)
        finally:
            collector.close()
        return final_result(collector, outcome, code, params.timeout)

    async def _spawn_and_wait(
        self, command: str, params: BashParams, collector: OutputCollector, call: ToolInvocation
    ) -> tuple[Outcome, int | None]:
        read_fd, write_fd = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                resolve_shell(self.settings),
                "-c",
                command,
                cwd=self.cwd,
                env=shell_env(self.settings),
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        reader = _PipeReader(call.on_update, collector)
        transport: asyncio.BaseTransport | None = None
        try:  # from here on the command dies with the call, even if cancelled while connecting
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_read_pipe(lambda: reader, pipe)
            outcome = await _wait(process, call.cancel, params.timeout)
            await _drain(reader, collector)
        finally:
            reader.stop_updates()
            if process.returncode is None:
                kill_process_tree(process.pid)
                await process.wait()
            if transport is not None:
                transport.close()
            else:
                pipe.close()
        return outcome, process.returncode


T = TypeVar("T")


async def wait_for_exit(
    exited: asyncio.Future[T], cancel: asyncio.Event | None, timeout: float | None
) -> None:
    """Return when ``exited`` is done, ``cancel`` is set or ``timeout`` seconds passed.

    A ``timeout`` of None or at most 0 is no limit (pi's). ``exited`` is left as it is: the
    caller tells the three endings apart and stops the command (here or in a client's terminal).
    """
    aborted = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    limit = timeout if timeout is not None and timeout > 0 else None
    try:
        waits = [task for task in (exited, aborted) if task is not None]
        await asyncio.wait(waits, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if aborted is not None and not aborted.done():
            aborted.cancel()


async def _wait(
    process: asyncio.subprocess.Process, cancel: asyncio.Event | None, timeout: float | None
) -> Outcome:
    """Wait for the shell to exit, the abort signal or the timeout; kill the group on the latter."""
    exited = asyncio.ensure_future(process.wait())
    try:
        await wait_for_exit(exited, cancel, timeout)
    finally:
        if not exited.done():
            exited.cancel()
    outcome: Outcome = "exited"
    if cancel is not None and cancel.is_set():
        outcome = "aborted"
    elif not exited.done() or exited.cancelled():
        outcome = "timeout"
    if outcome != "exited":
        kill_process_tree(process.pid)
        await process.wait()
    return outcome


async def _drain(reader: _PipeReader, collector: OutputCollector) -> None:
    """Read what is left in the pipe; stop early if a background process keeps it open."""
    for _ in range(_DRAIN_STEPS):
        seen = collector.total_bytes
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader.closed), _DRAIN_STEP)
        if reader.closed.done() or collector.total_bytes == seen:
            return


def final_result(
    collector: OutputCollector, outcome: Outcome, code: int | None, timeout: float | None
) -> ToolResult:
    """pi's final text: the tail, its notice, then the exit, abort or timeout status."""
    cut = collector.snapshot()
    text = cut.content
    details: dict[str, object] | None = None
    if cut.truncated:
        text += "\n\n" + _notice(cut, collector)
        details = {"truncation": cut.to_details(), "fullOutputPath": collector.full_output_path}
    if outcome == "aborted":
        return ToolResult.of_text(_with_status(text, "Command aborted"), {}, is_error=True)
    if outcome == "timeout":
        status = f"Command timed out after {js_number(timeout or 0)} seconds"
        return ToolResult.of_text(_with_status(text, status), {}, is_error=True)
    text = text if cut.content else "(no output)" + text
    if code is not None and code > 0:
        return ToolResult.of_text(f"{text}\n\nCommand exited with code {code}", {}, is_error=True)
    return ToolResult.of_text(text, details)


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def _notice(cut: TruncationResult, collector: OutputCollector) -> str:
    path: str | None = collector.full_output_path
    if collector.file_cut:
        path = f"{path} (its first {format_size(collector.file_limit)} only)"
    start = cut.total_lines - cut.output_lines + 1
    end = cut.total_lines
    if cut.last_line_partial:
        return (
            f"[Showing last {format_size(cut.output_bytes)} of line {end} "
            f"(line is {format_size(collector.last_line_bytes)}). Full output: {path}]"
        )
    if cut.truncated_by == "lines":
        return f"[Showing lines {start}-{end} of {cut.total_lines}. Full output: {path}]"
    return (
        f"[Showing lines {start}-{end} of {cut.total_lines} "
        f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {path}]"
    )

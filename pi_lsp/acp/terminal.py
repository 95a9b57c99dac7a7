"""``bash`` through the client's terminal (``terminal/*``) when the client offers one.

The command runs where the user can watch it (the client embeds the terminal in the tool call);
pi's tool semantics stay: abort and timeout kill it, the final text is pi's (tail-truncated
output, then ``Command exited with code N`` and the rest, by :class:`BashTool`'s own code). Only
the spawning differs, so this overrides :meth:`BashTool._spawn_and_wait`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from acp.schema import EnvVariable

from pi_lsp.tools.base import ToolResult, UpdateCallback
from pi_lsp.tools.bash import BashParams, BashTool, Outcome
from pi_lsp.tools.shell import OutputCollector, resolve_shell, shell_env
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES

logger = logging.getLogger(__name__)
OUTPUT_LIMIT = 4 * DEFAULT_MAX_BYTES
"""Bytes of output the client keeps (pi shows the last 50 KB)."""


class TerminalBash(BashTool):
    """pi's ``bash`` run in an ACP client terminal."""

    def __init__(self, base: BashTool, client: Any, session_id: str) -> None:
        super().__init__(base.cwd, base.settings)
        self.client = client
        self.session_id = session_id

    async def _spawn_and_wait(
        self,
        command: str,
        params: BashParams,
        collector: OutputCollector,
        cancel: asyncio.Event | None,
        on_update: UpdateCallback | None,
    ) -> tuple[Outcome, int | None]:
        ids = {"session_id": self.session_id}
        path = shell_env(self.settings).get("PATH")
        created = await self.client.create_terminal(
            command=resolve_shell(self.settings),
            args=["-c", command],
            cwd=self.cwd,
            env=[EnvVariable(name="PATH", value=path)] if path else None,
            output_byte_limit=OUTPUT_LIMIT,
            **ids,
        )
        terminal = created.terminal_id
        if on_update is not None:
            on_update(ToolResult(content=[], details={"terminalId": terminal}))
        try:
            outcome, code = await self._wait(terminal, cancel, params.timeout)
            output = await self.client.terminal_output(terminal_id=terminal, **ids)
            collector.append(str(output.output).encode("utf-8", "surrogatepass"))
            if code is None and output.exit_status is not None:
                code = output.exit_status.exit_code
            return outcome, code
        finally:
            with contextlib.suppress(Exception):
                await self.client.release_terminal(terminal_id=terminal, **ids)

    async def _wait(
        self, terminal: str, cancel: asyncio.Event | None, timeout: float | None
    ) -> tuple[Outcome, int | None]:
        ids = {"session_id": self.session_id, "terminal_id": terminal}
        exited = asyncio.ensure_future(self.client.wait_for_terminal_exit(**ids))
        aborted = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
        limit = timeout if timeout is not None and timeout > 0 else None
        try:
            waits = [task for task in (exited, aborted) if task is not None]
            await asyncio.wait(waits, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if aborted is not None and not aborted.done():
                aborted.cancel()
        if exited.done() and not exited.cancelled() and exited.exception() is None:
            return "exited", exited.result().exit_code
        outcome: Outcome = "aborted" if cancel is not None and cancel.is_set() else "timeout"
        with contextlib.suppress(Exception):
            await self.client.kill_terminal(**ids)
        exited.cancel()
        return outcome, None

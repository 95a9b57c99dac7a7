"""What the agent asks of the ACP client: files, terminals and permission.

- :class:`ClientFileSystem`, the tools' file system through ``fs/read_text_file`` and
  ``fs/write_text_file``. When the client offers them, reads return the editor's text (unsaved
  changes included) and writes go to the editor (its undo history, its buffers); otherwise, and
  for everything the protocol has no word for (stat, listing, images and other binary files),
  the local disk is used. A write the client refuses fails the tool call with the client's
  reason; nothing is then written to the disk behind its back. Each write remembers the text
  before and after, so the tool call can show a whole-file diff.
- :class:`SessionBash`, ``bash`` through the client's terminal (``terminal/*``) when the client
  offers one. The command runs where the user can watch it (the client embeds the terminal in
  the tool call); pi's tool semantics stay: abort and timeout kill it, the final text is pi's
  (tail-truncated output, then ``Command exited with code N`` and the rest, by
  :class:`BashTool`'s own code). Only the spawning differs, so this overrides
  :meth:`BashTool._spawn_and_wait`.

Both refuse to write or run anything while the session's mode is read-only (their ``guard``).
- :func:`asker_for`, the permission gate's asker over ``session/request_permission``. The gate
  (:mod:`pi_lsp.agent.permissions`) decides when to ask and applies its timeout; this sends the
  question with the tool call it concerns and pi's three answers (allow once, always allow in
  this session, reject). A cancelled prompt (``session/cancel``) stops waiting at once and
  counts as a refusal, as does a ``cancelled`` outcome or an option the agent did not offer.
  The session's mode answers some questions without asking (:mod:`pi_lsp.acp.controls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    EnvVariable,
    PermissionOption,
    ReadTextFileResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from pi_lsp.acp.content import kind_of, path_of
from pi_lsp.acp.controls import ALLOW_EDITS, READ_ONLY
from pi_lsp.agent.permissions import Asker, PermissionRequest, wait_unless
from pi_lsp.literals import PermissionDecision as Decision
from pi_lsp.tools import FileStat, LocalFileSystem, ToolError
from pi_lsp.tools.base import ToolInvocation, ToolResult
from pi_lsp.tools.bash import BashParams, BashTool, Outcome, wait_for_exit
from pi_lsp.tools.files import SNIFF_BYTES, detect_image_mime
from pi_lsp.tools.fs import encode_utf8
from pi_lsp.tools.shell import OutputCollector, resolve_shell, shell_env
from pi_lsp.tools.truncate import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from pi_lsp.acp.agent import PiAgent


logger = logging.getLogger(__name__)
Guard = Callable[[str], str | None]
"""``what`` (e.g. "writing /x") → why it is refused now, or None when it may happen."""


def unguarded(what: str) -> str | None:
    """A guard that allows everything."""
    return None


class FsClient(Protocol):
    """The two client methods used here (the SDK's ``Client``, its connection, has them)."""

    async def read_text_file(self, *, session_id: str, path: str) -> ReadTextFileResponse:
        """``fs/read_text_file``: the editor's text of ``path``."""

    async def write_text_file(
        self, *, session_id: str, path: str, content: str
    ) -> WriteTextFileResponse | None:
        """``fs/write_text_file``: the editor writes ``content`` to ``path``."""


@dataclass
class ClientFileSystem:
    """``FileSystem`` for one session; see the module docstring."""

    client: FsClient
    session_id: str
    cwd: str
    """The session's working directory (relative tool paths are resolved against it)."""
    read_through_client: bool
    write_through_client: bool
    disk: LocalFileSystem = field(default_factory=LocalFileSystem)
    guard: Guard = unguarded
    """Asked before every write (the read-only mode refuses them)."""
    changes: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    """Path → (text before, text after) of the last write to it (taken by :meth:`diff_for`)."""
    _last_read: dict[str, str] = field(default_factory=dict)

    def _disk_head(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as handle:
                return handle.read(SNIFF_BYTES)
        except FileNotFoundError:
            return None

    async def read_bytes(self, path: str) -> bytes:
        """The editor's text as UTF-8 (a binary file, and every file without delegation: disk)."""
        if not self.read_through_client:
            return await self.disk.read_bytes(path)
        head = self._disk_head(path)  # a directory or an unreadable file raises here
        if head is not None and (detect_image_mime(head) is not None or b"\0" in head):
            return await self.disk.read_bytes(path)
        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=path)
        except RequestError as exc:
            if head is None:
                raise FileNotFoundError(2, "No such file or directory", path) from None
            logger.warning("fs/read_text_file %s failed (%s): reading the disk", path, exc)
            return await self.disk.read_bytes(path)
        text = str(response.content)
        self._last_read[path] = text
        return encode_utf8(text)

    async def read_text(self, path: str) -> str:
        """The text, invalid bytes replaced."""
        return (await self.read_bytes(path)).decode("utf-8", "replace")

    async def _text_before(self, path: str) -> str | None:
        if path in self._last_read:
            return self._last_read.pop(path)
        try:
            return await self.read_text(path)
        except OSError:
            return None

    async def write_text(self, path: str, text: str) -> None:
        """Write through the editor when it offers it, else to the disk."""
        self._check(f"writing {path}")
        before = await self._text_before(path)
        if self.write_through_client:
            try:
                await self.client.write_text_file(
                    session_id=self.session_id, path=path, content=text
                )
            except RequestError as exc:
                raise ToolError(
                    f"The editor did not write {path}: {exc}. Nothing was written; "
                    "read the file again before retrying."
                ) from None
        else:
            await self.disk.write_text(path, text)
        self._last_read.pop(path, None)
        self.changes[path] = (before, text)

    def diff_for(
        self, name: str, call_id: str, args: Mapping[str, object]
    ) -> tuple[str, str | None, str] | None:
        """``(path, before, after)`` of the file an ``edit``/``write`` call changed, if seen."""
        if name not in ("edit", "write"):
            return None
        path = path_of(args, self.cwd)
        if path is None or path not in self.changes:
            return None
        before, after = self.changes.pop(path)
        return path, before, after

    async def exists(self, path: str) -> bool:
        """On the disk."""
        return await self.disk.exists(path)

    async def stat(self, path: str) -> FileStat:
        """On the disk."""
        return await self.disk.stat(path)

    async def access(self, path: str, *, write: bool = False) -> bool:
        """On the disk."""
        return await self.disk.access(path, write=write)

    async def list_dir(self, path: str) -> list[str]:
        """On the disk."""
        return await self.disk.list_dir(path)

    async def mkdir(self, path: str) -> None:
        """On the disk (the client creates a file's parents itself, but the tools ask first)."""
        self._check(f"creating the folder {path}")
        await self.disk.mkdir(path)

    def _check(self, what: str) -> None:
        refusal = self.guard(what)
        if refusal is not None:
            raise ToolError(refusal)


OUTPUT_LIMIT = 4 * DEFAULT_MAX_BYTES
"""Bytes of output the client keeps (pi shows the last 50 KB)."""


class SessionBash(BashTool):
    """pi's ``bash`` as an ACP session runs it (in the client's terminal when given ``client``)."""

    def __init__(
        self, base: BashTool, client: Client | None, session_id: str, guard: Guard
    ) -> None:
        super().__init__(base.cwd, base.settings)
        self.client = client
        """The connection to the client, when it offers terminals (else: pi-lsp's own process)."""
        self.session_id = session_id
        self.guard = guard

    async def run(self, params: BashParams, call: ToolInvocation) -> ToolResult:
        """pi's bash, unless the guard refuses shell commands now."""
        refusal = self.guard(f"running `{params.command[:200]}`")
        if refusal is not None:
            raise ToolError(refusal)
        return await super().run(params, call)

    async def _spawn_and_wait(
        self, command: str, params: BashParams, collector: OutputCollector, call: ToolInvocation
    ) -> tuple[Outcome, int | None]:
        client = self.client
        if client is None:
            return await super()._spawn_and_wait(command, params, collector, call)
        ids = {"session_id": self.session_id}
        path = shell_env(self.settings).get("PATH")
        created = await client.create_terminal(
            command=resolve_shell(self.settings),
            args=["-c", command],
            cwd=self.cwd,
            env=[EnvVariable(name="PATH", value=path)] if path else None,
            output_byte_limit=OUTPUT_LIMIT,
            **ids,
        )
        terminal = created.terminal_id
        if call.on_update is not None:
            call.on_update(ToolResult(content=[], details={"terminalId": terminal}))
        try:
            outcome, code = await self._wait(client, terminal, call.cancel, params.timeout)
            output = await client.terminal_output(terminal_id=terminal, **ids)
            collector.append(str(output.output).encode("utf-8", "surrogatepass"))
            if code is None and output.exit_status is not None:
                code = output.exit_status.exit_code
            return outcome, code
        finally:
            with contextlib.suppress(Exception):
                await client.release_terminal(terminal_id=terminal, **ids)

    async def _wait(
        self, client: Client, terminal: str, cancel: asyncio.Event | None, timeout: float | None
    ) -> tuple[Outcome, int | None]:
        ids = {"session_id": self.session_id, "terminal_id": terminal}
        exited = asyncio.ensure_future(client.wait_for_terminal_exit(**ids))
        await wait_for_exit(exited, cancel, timeout)
        if exited.done() and not exited.cancelled() and exited.exception() is None:
            return "exited", exited.result().exit_code
        outcome: Outcome = "aborted" if cancel is not None and cancel.is_set() else "timeout"
        with contextlib.suppress(Exception):
            await client.kill_terminal(**ids)
        exited.cancel()
        return outcome, None


OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow for this session", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
]
DECISIONS: dict[str, Decision] = {
    "allow_once": "allowOnce",
    "allow_always": "allowSession",
    "reject_once": "deny",
}


def _title(request: PermissionRequest) -> str:
    if request.kind == "bash":
        return f"Run `{request.detail[:200]}`"
    return f"{request.tool_name} {request.detail} (outside the workspace)"


def by_mode(mode: str, request: PermissionRequest) -> Decision | None:
    """The session mode's answer to a permission question (None: ask the user)."""
    if mode == READ_ONLY and request.kind != "readSecret":
        return "deny"
    if mode == ALLOW_EDITS and request.kind == "writeOutsideWorkspace":
        return "allowOnce"
    return None


def asker_for(agent: PiAgent, session_id: str) -> Asker:
    """The asker of one session."""

    async def ask(request: PermissionRequest) -> Decision:
        state = agent.sessions.get(session_id)
        decided = None if state is None else by_mode(state.mode, request)
        if decided is not None:
            return decided
        abort = state.live.abort_signal if state is not None else asyncio.Event()
        tool_call = ToolCallUpdate(
            tool_call_id=request.tool_call_id,
            title=_title(request),
            kind=kind_of(request.tool_name),
            status="pending",
            raw_input={"kind": request.kind, "detail": request.detail, "cwd": request.cwd},
        )
        asking = asyncio.ensure_future(
            agent.client.request_permission(
                session_id=session_id, tool_call=tool_call, options=OPTIONS
            )
        )
        if not await wait_unless(asking, abort) or asking.cancelled():
            return "deny"
        outcome = asking.result().outcome
        if isinstance(outcome, AllowedOutcome):
            return DECISIONS.get(outcome.option_id, "deny")
        return "deny"

    return ask

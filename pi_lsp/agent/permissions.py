"""Asking before risky tool calls: shell commands, writes that matter, reads of secrets.

Four kinds, each with a policy (``ask``, ``allow``, ``deny``; settings ``permissions.*``):

- ``bash``: every shell command;
- ``writeOutsideWorkspace``: a write or edit whose real path (links followed) is outside every
  workspace folder, or inside one but a file with several names (a hard link can be a second
  name of a file anywhere); with no folder open, every write;
- ``writeProtected``: a write inside a folder to a path that runs code or configures what runs
  (``.git``, ``.pi``, ``.vscode`` …, ``permissions.protectedPaths``; the agent directory always);
- ``readSecret``: reading a secret source (process environments, pi's ``auth.json``,
  ``permissions.secretPaths``); other reads are free anywhere, as in pi.

For ``ask`` an injected asker (the editor, through the daemon) answers ``allowOnce``,
``allowSession`` or ``deny``; no answer in time, or no way to ask, means deny. A denial becomes
the tool call's error result, so the model learns it was refused and the run goes on. The real
path a write was checked (and maybe asked) for goes to the write itself (``fs.write_checked``),
which refuses a target that changed in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.literals import PermissionDecision, PermissionKind
from pi_lsp.safety import inside, protected_pattern, secret_pattern
from pi_lsp.session.paths import agent_dir
from pi_lsp.settings import PermissionSettings
from pi_lsp.tools.base import ToolError, read_path_variants, resolve_to_cwd
from pi_lsp.tools.fs import WriteCheck, expect_write

logger = logging.getLogger(__name__)

WRITE_TOOLS = ("write", "edit")


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What the agent wants to do."""

    kind: PermissionKind
    tool_name: str
    tool_call_id: str
    detail: str
    """The command, or the absolute real path to be written or read."""
    cwd: str
    reason: str | None = None
    """Why a path is asked about, for the prompt (a hard link, the protected or secret pattern)."""


Asker = Callable[[PermissionRequest], Awaitable[PermissionDecision]]


@dataclass
class PermissionGate:
    """Policy plus the allowances the user granted for this session."""

    settings: PermissionSettings
    roots: Sequence[str]
    """Workspace folders; ordinary writes inside them need no permission (none: all do)."""
    ask: Asker | None = None
    agent: str = field(default_factory=lambda: str(agent_dir()))
    """pi's agent directory (its credentials are secret, writes into it protected)."""
    granted: set[PermissionKind] = field(default_factory=set)

    async def check(self, name: str, call_id: str, args: Mapping[str, Any], cwd: str) -> str | None:
        """None when the call may run, else the refusal text for its error result."""
        expect_write(None)
        try:
            request, write = self._request(name, call_id, args, cwd)
        except ToolError as exc:  # a path no file can have (a NUL byte)
            return exc.message
        if request is not None:
            refusal = await self._decide(request)
            if refusal is not None:
                return refusal
        if write is not None:
            expect_write(write)
        return None

    def is_secret(self, path: str) -> bool:
        """Whether reading ``path`` needs the ``readSecret`` permission (grep skips such files)."""
        if self.settings.readSecret == "allow" or "readSecret" in self.granted:
            return False
        return self._secret(path) is not None

    async def _decide(self, request: PermissionRequest) -> str | None:
        policy = getattr(self.settings, request.kind)
        if policy == "allow" or request.kind in self.granted:
            return None
        if policy == "deny":
            setting = f"permissions.{request.kind}"
            return f"Permission denied: the {setting} setting is 'deny' ({request.detail})."
        decision = await self._ask(request)
        if decision == "allowSession":
            self.granted.add(request.kind)
        if decision in ("allowOnce", "allowSession"):
            return None
        what = {
            "bash": "run this command",
            "readSecret": f"read {request.detail}",
        }.get(request.kind, f"write {request.detail}")
        return f"The user did not allow the agent to {what}. Do not retry it; ask the user instead."

    def _request(
        self, name: str, call_id: str, args: Mapping[str, Any], cwd: str
    ) -> tuple[PermissionRequest | None, WriteCheck | None]:
        path = args.get("path")
        if name == "bash":
            return PermissionRequest("bash", name, call_id, str(args.get("command", "")), cwd), None
        if name in WRITE_TOOLS and isinstance(path, str):
            return self._write_request(name, call_id, path, cwd)
        if name in ("read", "grep") and isinstance(path, str):
            absolute = resolve_to_cwd(path, cwd)
            variants = [absolute, *read_path_variants(absolute)] if name == "read" else [absolute]
            for candidate in variants:
                reason = self._secret(candidate)
                if reason is not None:
                    real = os.path.realpath(candidate)
                    return PermissionRequest("readSecret", name, call_id, real, cwd, reason), None
        return None, None

    def _write_request(
        self, name: str, call_id: str, path: str, cwd: str
    ) -> tuple[PermissionRequest | None, WriteCheck]:
        absolute = resolve_to_cwd(path, cwd)
        real = os.path.realpath(absolute)
        roots = [os.path.realpath(root) for root in self.roots]
        root = max((r for r in roots if inside(real, r)), key=len, default=None)
        links = _link_count(real)
        kind: PermissionKind | None = None
        reason: str | None = None
        if root is None:
            kind = "writeOutsideWorkspace"
            if not roots:
                reason = "no workspace folder is open"
        elif links > 1:
            kind = "writeOutsideWorkspace"
            reason = f"the file has {links} names (hard links); the others may be anywhere"
        else:
            patterns = self.settings.protectedPaths
            lexical_root = max((r for r in self.roots if inside(absolute, r)), key=len, default="")
            agent_real = os.path.realpath(self.agent)
            pattern = protected_pattern(real, root, patterns, agent_real) or (
                protected_pattern(absolute, lexical_root, patterns, self.agent)
                if lexical_root
                else None
            )
            if pattern is not None:
                kind, reason = "writeProtected", f"{pattern}: runs code or configures tools"
        check = WriteCheck(absolute, real, links_allowed=links > 1)  # then always asked
        if kind is None:
            return None, check
        return PermissionRequest(kind, name, call_id, real, cwd, reason), check

    def _secret(self, path: str) -> str | None:
        agent = os.path.realpath(self.agent)
        for candidate in dict.fromkeys((path, os.path.realpath(path))):
            reason = secret_pattern(candidate, self.settings.secretPaths, agent)
            if reason is not None:
                return reason
        return None

    async def _ask(self, request: PermissionRequest) -> PermissionDecision:
        if self.ask is None:
            return "deny"
        try:
            return await asyncio.wait_for(self.ask(request), self.settings.timeoutMs / 1000)
        except TimeoutError:
            logger.info("no answer to the permission request for %s: denied", request.detail)
        except Exception:
            logger.exception("asking for permission failed: denied")
        return "deny"


def _link_count(path: str) -> int:
    """How many names the existing regular file has (1 when missing or not a file)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return 1
    return info.st_nlink if not os.path.isdir(path) else 1


WITHDRAWN = "Aborted: the permission request was withdrawn before the user answered."


async def unless_cancelled(
    check: Awaitable[str | None], cancel: asyncio.Event | None
) -> str | None:
    """The permission check's answer, or :data:`WITHDRAWN` once the call is cancelled.

    The pending question is cancelled with it, so an abort (and a close or a shutdown, which
    abort) never waits for a prompt the user may not answer for minutes. The check runs in its
    own task, so the context variables it sets (the permission gate hands the path it checked
    to the write that way: ``tools.fs.write_checked``) are copied back to the caller afterwards,
    as if it had been awaited directly.
    """
    context = contextvars.copy_context()
    asking = asyncio.get_running_loop().create_task(_awaited(check), context=context)
    if cancel is not None:
        await wait_unless(asking, cancel)
        if asking.cancelled():
            return WITHDRAWN
    answer = await asking
    for variable, value in context.items():
        variable.set(value)
    return answer


async def wait_unless(task: asyncio.Future[Any], signal: asyncio.Event) -> bool:
    """Wait for ``task`` unless ``signal`` is set first; True when the task finished first.

    When the signal comes first the task is cancelled and awaited, so nothing is left running
    (a permission question withdrawn on abort). Shared by the loop (through
    :func:`unless_cancelled`) and the ACP face.
    """
    signalled = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, signalled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        signalled.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
    return task in done


async def _awaited(check: Awaitable[str | None]) -> str | None:
    return await check

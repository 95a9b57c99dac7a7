"""Asking before risky tool calls: shell commands and writes outside the workspace folders.

Each kind has a policy (``ask``, ``allow``, ``deny``; settings ``permissions.*``). For ``ask`` an
injected asker (the editor, through the daemon) answers ``allowOnce``, ``allowSession`` or
``deny``; no answer in time, or no way to ask, means deny. A denial becomes the tool call's error
result, so the model learns it was refused and the run goes on.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.literals import PermissionDecision, PermissionKind
from pi_lsp.settings import PermissionSettings
from pi_lsp.tools.paths import resolve_to_cwd

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What the agent wants to do."""

    kind: PermissionKind
    tool_name: str
    tool_call_id: str
    detail: str
    """The command, or the absolute path to be written."""
    cwd: str


Asker = Callable[[PermissionRequest], Awaitable[PermissionDecision]]


@dataclass
class PermissionGate:
    """Policy plus the allowances the user granted for this session."""

    settings: PermissionSettings
    roots: Sequence[str]
    """Workspace folders; writes inside them need no permission."""
    ask: Asker | None = None
    granted: set[PermissionKind] = field(default_factory=set)

    async def check(self, name: str, call_id: str, args: Mapping[str, Any], cwd: str) -> str | None:
        """None when the call may run, else the refusal text for its error result."""
        request = self._request(name, call_id, args, cwd)
        if request is None:
            return None
        policy = getattr(self.settings, request.kind)
        if policy == "allow" or request.kind in self.granted:
            return None
        if policy == "deny":
            setting = f"permissions.{request.kind}"
            return f"Permission denied: the {setting} setting is 'deny'."
        decision = await self._ask(request)
        if decision == "allowSession":
            self.granted.add(request.kind)
        if decision in ("allowOnce", "allowSession"):
            return None
        what = "run this command" if request.kind == "bash" else f"write {request.detail}"
        return f"The user did not allow the agent to {what}. Do not retry it; ask the user instead."

    def _request(
        self, name: str, call_id: str, args: Mapping[str, Any], cwd: str
    ) -> PermissionRequest | None:
        if name == "bash":
            return PermissionRequest("bash", name, call_id, str(args.get("command", "")), cwd)
        if name in ("write", "edit") and isinstance(args.get("path"), str):
            target = os.path.realpath(resolve_to_cwd(args["path"], cwd))
            if not any(_inside(target, root) for root in self.roots):
                return PermissionRequest("writeOutsideWorkspace", name, call_id, target, cwd)
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


def _inside(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)

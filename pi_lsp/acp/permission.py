"""The permission gate's asker over ``session/request_permission``.

The gate (:mod:`pi_lsp.agent.permissions`) decides when to ask and applies its timeout; this
sends the question with the tool call it concerns and pi's three answers (allow once, always
allow in this session, reject). A cancelled prompt (``session/cancel``) stops waiting at once
and counts as a refusal, as does a ``cancelled`` outcome or an option the agent did not offer.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from pi_lsp.acp.tool_calls import kind_of
from pi_lsp.agent.permissions import Asker, PermissionRequest
from pi_lsp.literals import PermissionDecision as Decision

if TYPE_CHECKING:
    from pi_lsp.acp.agent import PiAgent

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


def asker_for(agent: PiAgent, session_id: str) -> Asker:
    """The asker of one session."""

    async def ask(request: PermissionRequest) -> Decision:
        state = agent.sessions.get(session_id)
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
        aborted = asyncio.ensure_future(abort.wait())
        try:
            done, _ = await asyncio.wait({asking, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
            if not asking.done():
                asking.cancel()
                with contextlib.suppress(BaseException):
                    await asking
        if asking not in done or asking.cancelled():
            return "deny"
        answer: Any = asking.result()
        outcome = getattr(answer, "outcome", None)
        if isinstance(outcome, AllowedOutcome):
            return DECISIONS.get(outcome.option_id, "deny")
        return "deny"

    return ask

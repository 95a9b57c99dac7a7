"""Two daemons on one session: the one not running the turn is told about the other's entries
as they are written (``entry_appended`` with ``external: true``, then ``state_changed``), without
making any request."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from pi_lsp.devtools.fake_script import Script, Turn
from tests.deadlines import HANG
from tests.e2e.rpc_checks import SLOW, assert_events_valid, call, exact_json, holding_slow_turns


async def _event(editor: Any, matches: Any, what: str, timeout: float = HANG) -> dict[str, Any]:
    """The first event the editor received that ``matches``, waiting for it up to ``timeout``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        for e in editor.events:
            if matches(e["event"]):
                return e["event"]  # type: ignore[no-any-return]
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no {what} in {timeout} s")
        await asyncio.sleep(0.02)


async def _external(editor: Any, entry_id: str) -> dict[str, Any]:
    def appended(ev: dict[str, Any]) -> bool:
        return ev["type"] == "entry_appended" and ev["entry"]["id"] == entry_id

    return await _event(editor, appended, f"entry_appended for {entry_id}")


async def test_the_idle_daemon_sees_the_other_daemons_entries_as_they_are_written(
    start: Any,
) -> None:
    release = threading.Event()
    try:
        a = exact_json(
            await start(
                Script(turns=[Turn(text="First.")], default=Turn(text="Slow.")),
                responder=holding_slow_turns(release),
            )
        )
        b = exact_json(await start(Script()))
        session = (await call(a, "pi/session/new", {}))["sessionId"]
        await call(a, "pi/session/prompt", {"sessionId": session, "text": "hello"})
        await a.wait_for("agent_end")
        path = (await call(a, "pi/session/state", {"sessionId": session}))["sessionFile"]
        await call(b, "pi/session/open", {"path": path})
        b.events.clear()

        ack = await call(a, "pi/session/prompt", {"sessionId": session, "text": SLOW})
        # B makes no request: the user entry A wrote reaches it while A's turn still runs
        seen = await _external(b, ack["userEntryId"])
        assert seen["external"] is True and seen["entry"]["role"] == "user"
        # state_changed is its own notification, after the entry's: wait for it, not race it
        await _event(b, lambda ev: ev["type"] == "state_changed", "state_changed")
        states = [e["event"]["state"] for e in b.events if e["event"]["type"] == "state_changed"]
        assert states and states[-1]["leafId"] == ack["userEntryId"]
    finally:
        release.set()
    await a.wait_for("agent_end", count=2)
    leaf = (await call(a, "pi/session/state", {"sessionId": session}))["leafId"]
    seen = await _external(b, leaf)
    assert seen["entry"]["role"] == "assistant" and seen["external"] is True
    assert_events_valid(a, b)

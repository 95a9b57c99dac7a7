"""``abort``, ``close`` and ``shutdown`` answer at once while a permission prompt is open.

The scripted model asks to run ``touch ran``; the editor (a raw client) sees
``pi/requestPermission`` and never answers, as a user away from the keyboard would. The
permission timeout is 10 minutes, so a daemon that waits it out fails the test's 30 s wait for
the answer. The prompt must be withdrawn (``$/cancelRequest`` for its id), the tool call must
end as refused, the command must never run, and a late "allow" must change nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.builders import fake_settings, tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from tests.e2e.raw_client import TIMEOUT, StdioDaemon, initialize, request, stdio_daemon

SCRIPT = Script(
    turns=[tool_turn("bash", {"command": "touch ran"})],
    default=Turn(text="Done."),
)


def _wait_for(daemon: StdioDaemon, seen: list[dict[str, Any]], test: Any) -> dict[str, Any]:
    """The first message (kept in ``seen``) for which ``test`` holds."""
    for message in seen:
        if test(message):
            return message
    while True:
        message = daemon.receive()
        assert message is not None, (
            f"not received in {TIMEOUT} s: {[m.get('method') for m in seen]}"
        )
        seen.append(message)
        if test(message):
            return message


def _event(kind: str) -> Any:
    return lambda m: m.get("method") == "pi/event" and m["params"]["event"]["type"] == kind


def _asked(
    daemon: StdioDaemon, root: Path, fake: FakeOpenAI, timeout_ms: int
) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """A session whose turn waits on a permission prompt: its id, the messages, the prompt."""
    options = fake_settings(fake.base_url, permissions={"bash": "ask", "timeoutMs": timeout_ms})
    daemon.send(initialize(0, root, pi=options))
    daemon.answer(0)
    daemon.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    daemon.send(request(1, "pi/session/new", {}))
    session = daemon.answer(1)["result"]["sessionId"]
    daemon.send(request(2, "pi/session/prompt", {"sessionId": session, "text": "touch it"}))
    seen: list[dict[str, Any]] = []
    ask = _wait_for(daemon, seen, lambda m: m.get("method") == "pi/requestPermission")
    return session, seen, ask


@pytest.mark.parametrize("method", ["pi/session/abort", "pi/session/close", "shutdown"])
def test_an_open_prompt_is_withdrawn_and_the_request_answered(method: str, tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with FakeOpenAI(SCRIPT) as fake, stdio_daemon(tmp_path) as daemon:
        session, seen, ask = _asked(daemon, root, fake, 600_000)

        params = {} if method == "shutdown" else {"sessionId": session}
        daemon.send(request(3, method, params))
        cancel = _wait_for(daemon, seen, lambda m: m.get("method") == "$/cancelRequest")
        assert cancel["params"] == {"id": ask["id"]}
        answer = _wait_for(daemon, seen, lambda m: m.get("id") == 3 and "method" not in m)
        assert "error" not in answer, answer

        end = _wait_for(daemon, seen, _event("tool_execution_end"))["params"]["event"]
        assert end["isError"] is True
        assert "withdrawn" in end["result"]["content"][0]["text"]
        daemon.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"decision": "allowOnce"}})
        if method != "shutdown":
            daemon.send(request(4, "pi/sessions/list", {}))
            assert "result" in daemon.answer(4)  # the late answer was dropped, quietly
        else:
            daemon.send({"jsonrpc": "2.0", "method": "exit"})
            assert daemon.process.wait(TIMEOUT) == 0
        assert not (root / "ran").exists(), "the command ran without a yes"


def test_a_prompt_that_times_out_is_withdrawn_too(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with FakeOpenAI(SCRIPT) as fake, stdio_daemon(tmp_path) as daemon:
        _session, seen, ask = _asked(daemon, root, fake, 300)
        cancel = _wait_for(daemon, seen, lambda m: m.get("method") == "$/cancelRequest")
        assert cancel["params"] == {"id": ask["id"]}
        end = _wait_for(daemon, seen, _event("tool_execution_end"))["params"]["event"]
        assert end["isError"] is True and "did not allow" in end["result"]["content"][0]["text"]
        _wait_for(daemon, seen, _event("agent_end"))
    assert not (root / "ran").exists()

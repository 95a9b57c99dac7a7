"""Record real ``pi/event`` sequences from the daemon for the chat-model unit tests.

Run from the repository root: ``.venv/bin/python editors/vscode/scripts/capture_events.py``
(``npm run capture`` in editors/vscode). Drives ``python -m pi_lsp --stdio`` with the scripted
OpenAI-compatible server (``pi_lsp.devtools``) through the scenarios the panel must render and
writes one JSON file per scenario to ``editors/vscode/test/fixtures/``: the ``pi/event`` params in
arrival order, the server→client requests, and ``pi/session/messages`` and ``pi/session/tree``
before and after the scenario. The temporary directory is replaced by ``/home/me`` so reruns
differ only in ids and times.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bench.bench_daemon import Client, daemon_env  # noqa: E402
from pi_lsp.devtools.builders import assistant, user  # noqa: E402
from pi_lsp.devtools.fake_openai import FakeOpenAI  # noqa: E402
from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn, message_text  # noqa: E402
from pi_lsp.session import SessionStore  # noqa: E402

OUT = ROOT / "editors" / "vscode" / "test" / "fixtures"
CALC = "def add(a, b):\n    return abs(a) + b\n"
SUMMARY = "## Goal\nFix add()\n\n## Done\n- Removed abs()"


FOREIGN_PROMPT = "Meanwhile the CLI writes"
#: The session file another program appends to during the "foreign" scenario's model call.
foreign_file: list[str] = []


def responder(body: dict[str, Any]) -> Turn | None:
    """The scripted provider's answers beyond the script.

    Compaction and branch-summary requests carry a <conversation> block; in the "foreign"
    scenario another writer (as the pi CLI, which takes no lock) appends a user message and its
    reply to the session file while the daemon's model call runs.
    """
    if "<conversation>" in json.dumps(body.get("messages")):
        return Turn(text=SUMMARY)
    if foreign_file and FOREIGN_PROMPT in message_text(body["messages"][-1]):
        other = SessionStore.open(foreign_file.pop())
        other.append_message(user("A question from the CLI"))
        other.append_message(assistant("The CLI's answer"))
        other.close()
        return Turn(text="My answer, on my own branch.")
    return None


SCRIPT = Script(
    turns=[
        Turn(
            reasoning="Look first.",
            text="Reading **calc.py**.",
            tool_calls=[ScriptToolCall(name="read", arguments={"path": "calc.py"})],
        ),
        Turn(
            text="Fixing.",
            tool_calls=[
                ScriptToolCall(
                    name="edit", arguments={"path": "calc.py", "oldText": "abs(a)", "newText": "a"}
                )
            ],
        ),
        Turn(tool_calls=[ScriptToolCall(name="bash", arguments={"command": "echo tests pass"})]),
        Turn(text="Fixed: `add()` no longer calls `abs()`.\n\n```python\nreturn a + b\n```"),
    ],
    default=Turn(text="Done."),
)


class Recording:
    """The events and server→client requests since the last ``take``."""

    def __init__(self, client: Client) -> None:
        self.events: list[Any] = []
        self.requests: list[Any] = []
        client.on_message = self.on_message

    def on_message(self, message: dict[str, Any], arrival: int) -> None:
        """Keep ``pi/event`` params and server→client requests."""
        if message.get("method") == "pi/event":
            self.events.append(message["params"])
        elif message.get("method") and "id" in message:
            self.requests.append({"method": message["method"], "params": message.get("params")})

    def take(self) -> tuple[list[Any], list[Any]]:
        """What was recorded, then start afresh."""
        events, requests = self.events, self.requests
        self.events, self.requests = [], []
        return events, requests


async def idle(client: Client, session: str) -> None:
    """Wait until the session neither streams nor compacts."""
    for _ in range(1000):
        state = await client.request("pi/session/state", {"sessionId": session})
        if not state["isStreaming"] and not state["isCompacting"]:
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("the session did not become idle")


def scrub(value: Any, tmp: str) -> Any:
    """``value`` with the temporary directory shown as ``/home/me``."""
    if isinstance(value, str):
        return value.replace(tmp, "/home/me")
    if isinstance(value, list):
        return [scrub(v, tmp) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, tmp) for k, v in value.items()}
    return value


async def capture(work: Path) -> dict[str, Any]:
    """Run the scenarios; their recordings by name."""
    root = work / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    fake = FakeOpenAI(SCRIPT, responder=responder)
    fake.start()
    client = await Client.spawn(daemon_env(work / "agent"), cwd=str(root))
    rec = Recording(client)
    out: dict[str, Any] = {}
    try:
        options = {
            "apiBase": fake.base_url,
            "defaultModel": "openai/fake-model",
            "models": {"openai/fake-model": {"contextWindow": 100_000}},
            "retry": {"baseDelayMs": 10},
            "compaction": {"keepRecentTokens": 10},
            "permissions": {"bash": "ask"},
        }
        await client.initialize(root, options)
        session = (await client.request("pi/session/new", {}))["sessionId"]
        rec.take()

        async def scenario(name: str, action: Any) -> None:
            before = await client.request("pi/session/messages", {"sessionId": session})
            tree_before = await client.request("pi/session/tree", {"sessionId": session})
            rec.take()
            await action()
            await idle(client, session)
            await asyncio.sleep(0.1)
            events, requests = rec.take()
            after = await client.request("pi/session/messages", {"sessionId": session})
            tree_after = await client.request("pi/session/tree", {"sessionId": session})
            rec.take()
            out[name] = {
                "messagesBefore": before,
                "treeBefore": tree_before,
                "events": events,
                "serverRequests": requests,
                "messagesAfter": after,
                "treeAfter": tree_after,
            }

        async def turn() -> None:
            await client.request(
                "pi/session/prompt", {"sessionId": session, "text": "Why does add(-1, 2) return 3?"}
            )
            await client.wait_event("agent_end")

        await scenario("turn", turn)

        async def abort() -> None:
            fake.push(Turn(text="A long answer " * 40, chunk_size=3, hang_after=8))
            await client.request("pi/session/prompt", {"sessionId": session, "text": "Explain"})
            await client.wait_event("message_update", 10)
            await client.request("pi/session/steer", {"sessionId": session, "text": "Shorter"})
            await client.request("pi/session/abort", {"sessionId": session})

        await scenario("abort", abort)

        async def compact() -> None:
            await client.request("pi/session/compact", {"sessionId": session, "focus": "the fix"})

        await scenario("compact", compact)

        async def branch() -> None:
            tree = await client.request("pi/session/tree", {"sessionId": session})
            target = next(n["id"] for n in tree["nodes"] if n["preview"].startswith("Reading"))
            await client.request(
                "pi/session/branch",
                {"sessionId": session, "entryId": target, "summarize": True, "focus": "the fix"},
            )

        await scenario("branch", branch)

        async def label() -> None:
            tree = await client.request("pi/session/tree", {"sessionId": session})
            target = next(n["id"] for n in tree["nodes"] if n["role"] == "user")
            params = {"sessionId": session, "entryId": target}
            await client.request("pi/session/label", {**params, "label": "the question"})
            await client.request("pi/session/label", {**params, "label": None})
            await client.request("pi/session/label", {**params, "label": "the bug report"})

        await scenario("label", label)

        async def stale() -> None:
            # calc.py open in the editor, which refuses the edit as VS Code's client does when
            # the document's version moved on (the user typed): {"applied": false}, no reason
            uri = (root / "calc.py").as_uri()
            text = (root / "calc.py").read_text()
            doc = {"uri": uri, "languageId": "python", "version": 1, "text": text}
            client.notify("textDocument/didOpen", {"textDocument": doc})
            client.answers["workspace/applyEdit"] = lambda params: {"applied": False}
            edit = {"path": "calc.py", "oldText": "a + b", "newText": "b + a"}
            call = ScriptToolCall(name="edit", arguments=edit)
            fake.push(Turn(text="Swapping.", tool_calls=[call]))
            fake.push(Turn(text="The editor refused the edit; I will read calc.py again."))
            ends = len(client.events("agent_end"))
            await client.request("pi/session/prompt", {"sessionId": session, "text": "Swap them"})
            await client.wait_event("agent_end", ends + 1)
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

        await scenario("stale", stale)

        async def foreign() -> None:
            state = await client.request("pi/session/state", {"sessionId": session})
            foreign_file.append(state["sessionFile"])
            ends = len(client.events("agent_end"))
            prompt = {"sessionId": session, "text": FOREIGN_PROMPT}
            await client.request("pi/session/prompt", prompt)
            await client.wait_event("agent_end", ends + 1)

        await scenario("foreign", foreign)
    finally:
        await client.close()
        fake.stop()
    return out


def main() -> None:
    """Capture and write the fixtures.

    Only the scenarios named as arguments are written, if any are named; the scenarios build on
    each other, so all of them run.
    """
    only = set(sys.argv[1:])
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pi-capture-") as tmp:
        recorded = asyncio.run(capture(Path(tmp)))
        for name, data in recorded.items():
            if only and name not in only:
                continue
            path = OUT / f"{name}.json"
            path.write_text(json.dumps(scrub(data, tmp), indent=1, ensure_ascii=False) + "\n")
            print(f"{path.relative_to(ROOT)}: {len(data['events'])} events")


if __name__ == "__main__":
    main()

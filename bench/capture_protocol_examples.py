"""Capture real request/response pairs of every ``pi/…`` method for ``docs/protocol.md``.

Run: ``.venv/bin/python bench/capture_protocol_examples.py [--out FILE.json]``

Drives the real daemon (``python -m pi_lsp --stdio``) with the scripted OpenAI-compatible server
through the whole protocol: a turn that reads an unsaved buffer, edits it (``workspace/applyEdit``)
and runs ``bash`` (``pi/requestPermission``), queueing and abort, branch, fork, label, compact with
``$/progress``, retries, model and thinking changes, and a few error answers. Prints every example
(the first request/response of each method, the first event of each type, the server→client
requests) as Markdown-ready JSON; long strings are cut with ``…`` and the temporary directory is
shown as ``/home/me``. Not a benchmark: ``make bench`` skips it (it is not ``bench_*.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_daemon import Client, RpcError, daemon_env
from bench.common import SESSIONS
from pi_lsp.devtools.builders import fake_settings, tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, ScriptError, Turn

SUMMARY = "## Goal\nFix add()\n\n## Progress\n### Done\n- [x] Removed abs()"
CALC = "def add(a, b):\n    return abs(a) + b\n"
UNSAVED = "def add(a, b):\n    return abs(a) + b  # unsaved\n"


SUMMARY_DELAY = [0.0]
"""Seconds the summary takes (to have time to cancel a compaction)."""


def summaries(body: dict[str, Any]) -> Turn | None:
    """Compaction and branch-summary requests carry a <conversation> block."""
    if "<conversation>" not in json.dumps(body.get("messages")):
        return None
    return Turn(text=SUMMARY, response_delay=SUMMARY_DELAY[0])


SCRIPT = Script(
    turns=[
        tool_turn("read", {"path": "calc.py"}, reasoning="Look first.", text="Reading."),
        tool_turn("edit", {"path": "calc.py", "oldText": "abs(a)", "newText": "a"}, text="Fixing."),
        tool_turn("bash", {"command": "echo tests pass"}),
        Turn(text="Fixed: add() no longer calls abs()."),
    ],
    default=Turn(text="Done."),
)


class Recorder:
    """Every message in order, plus the first example of each kind."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.pairs: dict[str, list[dict[str, Any]]] = {}
        self.errors: list[dict[str, Any]] = []
        self.events: dict[str, dict[str, Any]] = {}
        self.server_requests: dict[str, dict[str, Any]] = {}
        self.notifications: dict[str, dict[str, Any]] = {}

    def on_message(self, message: dict[str, Any], arrival: int) -> None:
        method = message.get("method")
        if method == "pi/event":
            kind = message["params"]["event"]["type"]
            if kind == "message_update":
                kind += ":" + message["params"]["event"]["assistantMessageEvent"]["type"]
            self.events.setdefault(kind, message)
            if kind in ("auto_compaction_end", "compaction_end"):  # failed, cancelled, done
                self.events[f"{kind}#{message['params']['seq']}"] = message
        elif method is not None and "id" in message:
            self.server_requests.setdefault(method, {"request": message})
        elif method is not None:
            self.notifications.setdefault(method, message)
            if method == "$/progress":
                value = message["params"]["value"]
                self.notifications.setdefault(
                    f"$/progress:{value['kind']}:{value.get('message')}", message
                )

    async def call(self, client: Client, method: str, params: Any, note: str = "") -> Any:
        request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        try:
            result = await client.request(method, params)
        except RpcError as exc:
            self.errors.append({"request": request, "error": exc.error, "note": note})
            raise
        self.pairs.setdefault(method, []).append(
            {"request": request, "result": result, "note": note}
        )
        return result

    async def error(self, client: Client, method: str, params: Any, note: str) -> None:
        try:
            await self.call(client, method, params, note)
        except RpcError:
            return
        raise AssertionError(f"{method} {params} did not fail")


def shorten(value: Any, root: str, limit: int) -> Any:
    """Long strings cut, the temporary directory shown as ``/home/me``."""
    if isinstance(value, str):
        value = value.replace(root, "/home/me")
        value = value.replace(root.strip("/").replace("/", "-"), "home-me")
        return value if len(value) <= limit else value[: limit - 1] + "…"
    if isinstance(value, list):
        return [shorten(v, root, limit) for v in value]
    if isinstance(value, dict):
        return {k: shorten(v, root, limit) for k, v in value.items()}
    return value


async def wait_idle(client: Client, session: str) -> None:
    for _ in range(500):
        if not (await client.request("pi/session/state", {"sessionId": session}))["isStreaming"]:
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("the turn did not end")


async def capture(work: Path) -> Recorder:
    root = work / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    recorder = Recorder(work)
    fake = FakeOpenAI(SCRIPT, responder=summaries)
    fake.start()
    client = await Client.spawn(daemon_env(work / "agent"), cwd=str(root))
    client.on_message = recorder.on_message
    client.answers["window/workDoneProgress/create"] = lambda params: None
    options = fake_settings(
        fake.base_url,
        compaction={"keepRecentTokens": 10},
        permissions={"bash": "ask"},
        editMode="vim",
    )
    try:
        init_params = {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {"workspace": {"applyEdit": True}, "…": "…"},
            "workspaceFolders": [{"uri": root.as_uri(), "name": "project"}],
            "initializationOptions": {"pi": options},
        }
        result = await client.initialize(root, options)
        recorder.pairs["initialize"] = [{"request": init_params, "result": result, "note": ""}]
        uri = (root / "calc.py").as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": CALC}},
        )
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": 1, "character": 21},
                            "end": {"line": 1, "character": 21},
                        },
                        "text": "  # unsaved",
                    }
                ],
            },
        )

        def applied(params: Any) -> Any:
            # report the edit back as the editor would (version 3)
            asyncio.get_running_loop().call_soon(
                client.notify,
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": 3},
                    "contentChanges": [{"text": UNSAVED.replace("abs(a)", "a")}],
                },
            )
            return {"applied": True}

        client.answers["workspace/applyEdit"] = applied
        await recorder.call(client, "pi/models/list", {})
        state = await recorder.call(client, "pi/session/new", {})
        session = state["sessionId"]

        async def call(method: str, note: str = "", /, **params: Any) -> Any:
            """``method`` on this session: its ``sessionId`` first in ``params``."""
            return await recorder.call(client, method, {"sessionId": session, **params}, note)

        ack = await call("pi/session/prompt", text="Why does add(-1, 2) return 3?")
        await client.wait_event("agent_end")
        await call("pi/session/state")
        await call("pi/session/tree")
        await call("pi/session/messages")
        await call("pi/session/rename", name="Fix add()")
        await call("pi/session/label", entryId=ack["userEntryId"], label="the question")
        await call("pi/session/label", "clears the label", entryId=ack["userEntryId"], label=None)
        await call("pi/session/setThinkingLevel", level="high")
        await call("pi/session/setModel", model="openai/fake-model-2")
        await call("pi/session/setThinkingLevel", level="high")

        # A slow turn: steer, follow-up, a queued prompt, then abort.
        fake.push(Turn(text="A long answer " * 40, chunk_size=3, hang_after=8))
        await call("pi/session/prompt", text="Explain")
        await client.wait_event("message_update", 10)
        await recorder.error(
            client,
            "pi/session/label",
            {"sessionId": session, "entryId": ack["userEntryId"], "label": "x"},
            "a write while the agent runs",
        )
        await call("pi/session/steer", text="Shorter, please")
        await call("pi/session/followUp", text="Then add a test")
        await call(
            "pi/session/prompt",
            "queued while the agent runs",
            text="And a docstring",
            streamingBehavior="followUp",
        )
        await call("pi/session/abort")
        await wait_idle(client, session)

        # A transient provider error, retried.
        fake.push(Turn(error=ScriptError(status=503)), Turn(text="Retried fine."))
        await call("pi/session/prompt", text="Again?")
        await client.wait_event("auto_retry_end")
        await wait_idle(client, session)

        tree = await client.request("pi/session/tree", {"sessionId": session})
        first_answer = next(
            n["id"] for n in tree["nodes"] if n["preview"].startswith("Fixed: add()")
        )
        await call(
            "pi/session/branch",
            "back to the first answer, summarizing the branch left",
            entryId=first_answer,
            summarize=True,
            focus="what was tried",
            label="back here",
        )
        await wait_idle(client, session)
        await call("pi/session/fork", entryId=ack["userEntryId"])
        await call("pi/session/compact", focus="the fix")
        await call(
            "pi/session/branch",
            "to a user message: its text comes back for editing",
            entryId=ack["userEntryId"],
        )
        await recorder.call(client, "pi/sessions/list", {})
        source = SESSIONS / "labels.jsonl"
        copy = work / "labels.jsonl"
        shutil.copyfile(source, copy)
        opened = await recorder.call(
            client, "pi/session/open", {"path": str(copy), "folder": root.as_uri()}
        )
        await recorder.call(client, "pi/session/close", {"sessionId": opened["sessionId"]})

        # Compactions cancelled: $/cancelRequest, then the progress report's cancel button.
        slow = (await client.request("pi/session/new", {}))["sessionId"]
        for _ in range(2):
            fake.push(Turn(text="An answer to cut. " * 30))
            await client.request("pi/session/prompt", {"sessionId": slow, "text": "question " * 30})
            await wait_idle(client, slow)
        SUMMARY_DELAY[0] = 2.0
        for how in ("$/cancelRequest", "window/workDoneProgress/cancel"):
            tokens = len(client.server_requests)
            pending = client.send("pi/session/compact", {"sessionId": slow})
            request_id = client.last_id
            await asyncio.sleep(0.5)
            if how == "$/cancelRequest":
                client.notify(how, {"id": request_id})
            else:
                token = next(
                    r["params"]["token"]
                    for r in client.server_requests[tokens:]
                    if r["method"] == "window/workDoneProgress/create"
                )
                client.notify(how, {"token": token})
            try:
                await asyncio.wait_for(pending, 10)
                outcome: Any = "answered"
            except RpcError as exc:
                outcome = exc.error
            recorder.errors.append(
                {
                    "request": {"method": "pi/session/compact", "id": request_id},
                    "error": outcome,
                    "note": f"cancelled with {how}",
                }
            )
        SUMMARY_DELAY[0] = 0.0

        # New settings from the editor; a session opened afterwards compacts by itself.
        changed = {
            **options,
            "editMode": "editor",
            "compaction": {"reserveTokens": 99_990, "keepRecentTokens": 10},
        }
        client.notify("workspace/didChangeConfiguration", {"settings": {"pi": changed}})
        recorder.pairs["workspace/didChangeConfiguration"] = [
            {"request": {"settings": {"pi": changed}}, "result": None, "note": "notification"}
        ]
        fresh = (await client.request("pi/session/new", {}))["sessionId"]
        for number in range(2):  # the first has nothing to compact yet
            fake.push(Turn(text="A longer answer, " * 30))
            await client.request("pi/session/prompt", {"sessionId": fresh, "text": "Compact me"})
            await client.wait_event("auto_compaction_end", number + 1)
            await wait_idle(client, fresh)

        await recorder.error(client, "pi/session/state", {}, "invalid params")
        await recorder.error(client, "pi/session/state", {"sessionId": "nope"}, "unknown session")
        await recorder.error(
            client,
            "pi/session/branch",
            {"sessionId": session, "entryId": "deadbeef"},
            "unknown entry",
        )
        await recorder.error(
            client, "pi/session/open", {"path": str(work / "missing.jsonl")}, "missing file"
        )
        await recorder.error(client, "pi/sessions/list", {"folder": "file:///elsewhere"}, "folder")
    finally:
        await client.close()
        fake.stop()
    return recorder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="also write everything (unshortened) as JSON")
    parser.add_argument("--limit", type=int, default=140, help="cut strings longer than this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pi-capture-") as tmp:
        recorder = asyncio.run(capture(Path(tmp)))
        everything = {
            "pairs": recorder.pairs,
            "errors": recorder.errors,
            "events": recorder.events,
            "serverRequests": recorder.server_requests,
            "notifications": recorder.notifications,
        }
        if args.out:
            args.out.write_text(json.dumps(everything, indent=2, ensure_ascii=False))
        short = shorten(everything, tmp, args.limit)
    for section, items in short.items():
        print(f"\n# {section}")
        if isinstance(items, list):
            for item in items:
                print(json.dumps(item, indent=2, ensure_ascii=False))
            continue
        for name, item in items.items():
            print(f"\n## {name}")
            print(json.dumps(item, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()

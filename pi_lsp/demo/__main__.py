"""``make demo``: the real daemon over stdio, driven by a headless editor, fully offline.

In a temporary workspace with a small Python project, a headless LSP client (the "editor") starts
``pi-lsp --stdio``, opens ``calc.py`` and talks ``pi/…`` to it. The agent (real litellm, talking to
the scripted OpenAI-compatible server on 127.0.0.1) reads the file, fixes a bug through the
editor's ``workspace/applyEdit``, asks permission and runs the tests with bash, answers a second
request; the user branches back with a branch summary and asks for something else; a small
context window forces an automatic compaction. The session tree, the context usage and the
session file (pi's format, where pi keeps it) are shown at the end.

The scripted model (:func:`respond`) chooses its replies from the request itself, so the story
works however the agent interleaves calls: a compaction or branch-summary request (it carries a
``<conversation>`` block) gets a structured summary; otherwise the latest user prompt selects a
play, and the number of tool results since that prompt selects the step.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_lsp.demo.headless import HeadlessEditor, render_tree
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import ScriptToolCall, ScriptUsage, Turn, message_text

PROJECT = {
    "calc.py": 'def add(a, b):\n    """Add two numbers."""\n    return abs(a) + b\n',
    "test_calc.py": (
        "import unittest\n\nfrom calc import add\n\n\n"
        "class AddTest(unittest.TestCase):\n"
        "    def test_negative(self):\n        self.assertEqual(add(-2, 3), 1)\n\n\n"
        'if __name__ == "__main__":\n    unittest.main()\n'
    ),
}

FIX = "The test for negative numbers fails. Please fix calc.py."
DOCS = "What exactly does test_calc.py check?"
MULTIPLY = "Never mind that. Add a multiply function next to add."

SUMMARY = (
    "## Goal\nFix calc.add for negative numbers and extend calc.py.\n\n"
    "## Constraints & Preferences\n- Keep the unittest suite green\n\n"
    "## Progress\n### Done\n- [x] Read calc.py; `add` used `abs(a)`\n- [x] Fixed `add`; "
    "`python -m unittest` passes\n### In Progress\n- [ ] (none)\n### Blocked\n- (none)\n\n"
    "## Key Decisions\n- **Plain unittest**: no extra dependencies\n\n"
    "## Next Steps\n1. Continue with the user's next request\n\n"
    "## Critical Context\n- Tests run with `python -m unittest -q`"
)


MULTIPLY_CODE = (
    '    return a + b\n\n\ndef multiply(a, b):\n    """Multiply two numbers."""\n    return a * b\n'
)


def _call(name: str, **arguments: Any) -> ScriptToolCall:
    return ScriptToolCall(name=name, arguments=arguments)


def _usage(prompt_tokens: int) -> ScriptUsage:
    return ScriptUsage(prompt_tokens=prompt_tokens, completion_tokens=60)


PLAYS: dict[str, list[Turn]] = {
    FIX: [
        Turn(
            text="Let me look at calc.py.",
            tool_calls=[_call("read", path="calc.py")],
            usage=_usage(900),
        ),
        Turn(
            text="`add` takes `abs(a)`, which breaks negative numbers. Fixing it.",
            tool_calls=[
                _call("edit", path="calc.py", oldText="return abs(a) + b", newText="return a + b")
            ],
            usage=_usage(1100),
        ),
        Turn(
            text="Running the tests.",
            tool_calls=[_call("bash", command="python -m unittest -q test_calc 2>&1")],
            usage=_usage(1300),
        ),
        Turn(text="Fixed: `add(-2, 3)` is now 1 and the test passes.", usage=_usage(1500)),
    ],
    DOCS: [
        Turn(tool_calls=[_call("read", path="test_calc.py")], usage=_usage(1700)),
        Turn(text="One unittest case: `add(-2, 3)` must equal 1.", usage=_usage(1800)),
    ],
    MULTIPLY: [
        Turn(
            tool_calls=[
                _call(
                    "edit",
                    path="calc.py",
                    oldText="    return a + b\n",
                    newText=MULTIPLY_CODE,
                )
            ],
            usage=_usage(2600),
        ),
        Turn(
            tool_calls=[
                _call(
                    "bash", command="python -c 'from calc import multiply; print(multiply(6, 7))'"
                )
            ],
            usage=_usage(3000),
        ),
        Turn(text="Added `multiply`; `multiply(6, 7)` prints 42.", usage=_usage(3400)),
    ],
}


def respond(body: dict[str, Any]) -> Turn:
    """The fake model's reply to one chat-completions request."""
    messages = body.get("messages") or []
    if "<conversation>" in json.dumps(messages):
        return Turn(text=SUMMARY, usage=_usage(800))
    steps = 0
    for message in reversed(messages):
        if message.get("role") == "tool":
            steps += 1
        elif message.get("role") == "user" and message_text(message) in PLAYS:
            play = PLAYS[message_text(message)]
            return play[min(steps, len(play) - 1)]
    return Turn(text="(the demo script has no reply for this)")


WINDOW = 4000
"""The demo model's context window: small, so the third request triggers a compaction."""


def _step(title: str) -> None:
    print(f"\n=== {title}", flush=True)


def _settings(api_base: str) -> dict[str, Any]:
    return {
        "apiBase": api_base,
        "defaultModel": "openai/demo-model",
        "models": {"openai/demo-model": {"contextWindow": WINDOW}},
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 150},
        "permissions": {"bash": "ask"},
    }


async def story(workspace: Path) -> None:
    """Run the scripted session in ``workspace`` through the daemon and print it."""
    project = workspace / "project"
    project.mkdir()
    for name, text in PROJECT.items():
        (project / name).write_text(text)
    editor = HeadlessEditor()
    with FakeOpenAI(responder=respond) as fake:
        started = time.perf_counter()
        await editor.start(project, _settings(fake.base_url))
        print(
            f"daemon initialized in {(time.perf_counter() - started) * 1000:.0f} ms (pi-lsp --stdio)"
        )
        editor.open(project / "calc.py")
        state = await editor.request("pi/session/new", {})
        session = state["sessionId"]
        print(f"session {session} with {state['model']['provider']}/{state['model']['modelId']}")
        _step(f"1. user: {FIX}")
        await editor.prompt(session, FIX)
        _step(f"2. user: {DOCS}")
        docs_entry = await editor.prompt(session, DOCS)
        _step("3. branch back to before request 2, summarizing the branch that is left")
        nav = await editor.request(
            "pi/session/branch", {"sessionId": session, "entryId": docs_entry, "summarize": True}
        )
        print(f"  leaf moved; the request comes back for editing: {nav['editorText']!r}")
        print(f"  branch summary entry: {nav['summaryEntryId']}")
        _step(f"4. user (on the new branch): {MULTIPLY}")
        await editor.prompt(session, MULTIPLY)
        _step("5. the session tree (pi/session/tree: pi's JSONL tree, nothing rewritten)")
        print(render_tree(await editor.request("pi/session/tree", {"sessionId": session})), end="")
        _step("6. what the model sees now (pi/session/messages) and the context usage")
        messages = await editor.request("pi/session/messages", {"sessionId": session})
        for entry in messages["entries"]:
            kind = entry["message"]["role"] if entry["type"] == "message" else entry["type"]
            print(f"  [{kind}] {entry['id']}")
        state = await editor.request("pi/session/state", {"sessionId": session})
        usage = state["contextUsage"]
        if usage is not None:
            window = f"{usage['contextWindow']}-token window"
            shown = (
                "unknown until the next reply reports usage"
                if usage["tokens"] is None
                else f"{usage['tokens']} tokens"
            )
            print(f"  context usage: {shown} ({window})")
        _step("7. files")
        print(
            f"  calc.py (edited through the editor, saved by it):\n{_indent((project / 'calc.py').read_text())}"
        )
        print(f"  session file: {state['sessionFile']}")
        print(f"  {len(fake.requests)} requests went through litellm to the local scripted server")
        await editor.stop()


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.splitlines())


def main() -> int:
    """Entry point of ``python -m pi_lsp.demo``."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pi-lsp-demo-") as tmp:
        workspace = Path(tmp)
        os.environ["PI_CODING_AGENT_DIR"] = str(workspace / "agent")
        os.environ.setdefault("OPENAI_API_KEY", "demo-key-for-the-local-server")
        print(f"workspace {workspace} (agent dir: {workspace / 'agent'})")
        asyncio.run(story(workspace))
    print(f"\ndemo finished in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

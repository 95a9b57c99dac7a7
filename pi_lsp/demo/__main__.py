"""``make demo``: the real daemon over stdio, driven by a headless editor, fully offline.

In a temporary workspace with a small Python project, a headless LSP client (the "editor") starts
``pi-lsp --stdio``, opens ``calc.py`` and talks ``pi/…`` to it. The agent (real litellm, talking to
the scripted OpenAI-compatible server on 127.0.0.1) reads the file, fixes a bug through the
editor's ``workspace/applyEdit``, asks permission and runs the tests with bash, answers a second
request; the user branches back with a branch summary and asks for something else; a small
context window forces an automatic compaction. The session tree, the context usage and the
session file (pi's format, where pi keeps it) are shown at the end.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_lsp.demo.headless import HeadlessEditor
from pi_lsp.demo.playbook import DOCS, FIX, MULTIPLY, PROJECT, respond
from pi_lsp.demo.tree import render_tree
from pi_lsp.devtools.fake_openai import FakeOpenAI

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

"""``make demo``: an offline coding-agent session, printed as it happens.

In a temporary workspace with a small Python project, the agent (real litellm, talking to the
scripted OpenAI-compatible server on 127.0.0.1) reads a file, fixes a bug, runs the tests with
bash, takes a second request, then the user branches back with a branch summary and asks for
something else; a small context window forces an automatic compaction. At the end the session
tree, the context usage and the session file (pi's format, where pi keeps it) are shown.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_lsp.agent.factory import AgentOptions, create_agent_session
from pi_lsp.demo.playbook import DOCS, FIX, MULTIPLY, PROJECT, respond
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.session import SessionStore
from pi_lsp.session.render import render_context, render_tree
from pi_lsp.settings import Settings

WINDOW = 4000
"""The demo model's context window: small, so the third request triggers a compaction."""


class Narrator:
    """Prints agent events as a transcript."""

    def __init__(self) -> None:
        self.in_text = False

    def __call__(self, event: dict[str, Any]) -> None:
        """Print one event (text deltas inline, tools and compaction on their own lines)."""
        kind = event["type"]
        if kind == "message_update" and event["assistantMessageEvent"].get("type") == "text_delta":
            if not self.in_text:
                sys.stdout.write("  assistant: ")
                self.in_text = True
            sys.stdout.write(event["assistantMessageEvent"]["delta"])
        elif kind == "message_end" and self.in_text:
            sys.stdout.write("\n")
            self.in_text = False
        if kind == "tool_execution_start":
            print(f"  → {event['toolName']} {_brief(event['args'])}")
        elif kind == "tool_execution_end":
            text = " ".join(b.get("text", "") for b in event["result"].get("content", []))
            print(f"  {'✗' if event['isError'] else '✓'} {_brief(text)}")
        elif kind == "auto_compaction_start":
            print(f"  ⟳ automatic compaction ({event['reason']}: context above window − reserve)")
        elif kind == "auto_compaction_end":
            outcome = event.get("errorMessage") or "summary written, recent turns kept verbatim"
            print(f"  ⟳ compaction done: {outcome}")
        sys.stdout.flush()


def _brief(value: Any, limit: int = 90) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _step(title: str) -> None:
    print(f"\n=== {title}")


def _user_entry(store: SessionStore, text: str) -> str:
    for record in reversed(store.records):
        if record.role == "user" and text in str(record.value["message"]["content"]):
            return record.id
    raise LookupError(text)


async def story(workspace: Path) -> None:
    """Run the scripted session in ``workspace`` and print it."""
    project = workspace / "project"
    project.mkdir()
    for name, text in PROJECT.items():
        (project / name).write_text(text)
    cwd = str(project)
    with FakeOpenAI(responder=respond) as fake:
        settings = Settings.model_validate(
            {
                "apiBase": fake.base_url,
                "models": {"openai/demo-model": {"contextWindow": WINDOW}},
                "compaction": {"reserveTokens": 1000, "keepRecentTokens": 150},
            }
        )
        store = SessionStore.create(cwd)
        agent = await create_agent_session(
            store, cwd, settings, AgentOptions(model="openai/demo-model")
        )
        agent.subscribe(Narrator())
        _step(f"1. user: {FIX}")
        await agent.prompt(FIX)
        _step(f"2. user: {DOCS}")
        await agent.prompt(DOCS)
        _step("3. branch back to before request 2, summarizing the branch that is left")
        nav = await agent.navigate(_user_entry(store, DOCS), summarize=True)
        print(f"  leaf moved; the request comes back for editing: {nav.editor_text!r}")
        print(f"  branch summary entry: {nav.summary_entry_id}")
        _step(f"4. user (on the new branch): {MULTIPLY}")
        await agent.prompt(MULTIPLY)
        requests = len(fake.requests)
    _step("5. the session tree (pi's JSONL tree; nothing was rewritten)")
    print(render_tree(store.tree(), store.leaf_id), end="")
    _step("6. what the model sees now")
    print(render_context(store.context()), end="")
    usage = agent.context_usage()
    if usage is not None:
        window = f"{usage.context_window}-token window"
        if usage.tokens is None:
            print(f"  context usage: unknown until the next reply reports usage ({window})")
        else:
            print(f"  context usage: {usage.tokens} tokens of a {window}")
    _step("7. files")
    print(f"  calc.py:\n{_indent((project / 'calc.py').read_text())}")
    print(f"  session file: {store.path}")
    print(f"  {requests} requests went through litellm to the local scripted server")


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

"""``make demo``: an offline walk through pi_lsp's session memory, printed step by step.

It writes a pi-format session into a temporary agent dir, branches, labels, forks, reopens the
file as pi would, and shows the tree, the context at two leaves and the session list. No model
is called; later issues extend this into a scripted agent session.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_lsp.session import SessionStore
from pi_lsp.session.branching import branched_session
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.render import render_context, render_tree

USAGE = {
    "input": 1200,
    "output": 80,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1280,
    "cost": {"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0, "total": 0.0048},
}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": _now_ms()}


def _assistant(text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", **c} for c in calls or []]
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "openai",
        "model": "demo-model",
        "usage": USAGE,
        "stopReason": "toolUse" if calls else "stop",
        "timestamp": _now_ms(),
    }


def _result(call_id: str, name: str, text: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": _now_ms(),
    }


def _step(title: str) -> None:
    print(f"\n=== {title}")


def run(workspace: Path) -> None:
    """Build, branch and reopen a session under ``workspace``; print what happens."""
    cwd = str(workspace / "project")
    store = SessionStore.create(cwd)
    store.append_model_change("openai", "demo-model")
    store.append_thinking_level_change("medium")
    question = store.append_message(_user("Why does add() fail for negative numbers?"))
    read = {"id": "call_1", "name": "read", "arguments": {"path": "calc.py"}}
    store.append_message(_assistant("Let me read calc.py.", [read]))
    store.append_message(_result("call_1", "read", "def add(a, b):\n    return abs(a) + b\n"))
    first_answer = store.append_message(_assistant("add() takes abs(a); that is the bug."))
    store.append_label(question, "bug report")
    _step(f"session written to {store.path}")
    assert store.path is not None
    print(store.path.read_text(encoding="utf-8").splitlines()[0])

    _step("branch back to the question and answer differently (nothing is rewritten)")
    store.branch(question)
    store.append_message(_assistant("Alternative: maybe the tests are wrong? Let me check."))
    store.append_session_info("negative numbers")
    print(render_tree(store.tree(), store.leaf_id), end="")

    _step("context at the current leaf (what the model would see)")
    print(render_context(store.context()), end="")
    _step(f"context at the first answer {first_answer}")
    print(render_context(store.context(first_answer)), end="")

    _step("fork the first answer's path into its own session file")
    fork = branched_session(store, first_answer)
    print(f"{fork.path} (parentSession = {fork.header.get('parentSession')})")

    _step("reopen the original file, as pi would, and list the project's sessions")
    reopened = SessionStore.open(store.path)
    print(f"entries {reopened.entry_count}, leaf {reopened.leaf_id}, labels {reopened.labels}")
    for info in SessionLister().list_cwd(cwd):
        print(f"{info.modified}  {info.messageCount} msgs  {info.name or info.firstMessage}")


def main() -> int:
    """Entry point of ``python -m pi_lsp.demo``."""
    with tempfile.TemporaryDirectory(prefix="pi-lsp-demo-") as tmp:
        workspace = Path(tmp)
        os.environ["PI_CODING_AGENT_DIR"] = str(workspace / "agent")
        print(f"agent dir: {workspace / 'agent'}")
        run(workspace)
    return 0


if __name__ == "__main__":
    sys.exit(main())

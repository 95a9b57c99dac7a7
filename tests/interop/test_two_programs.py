"""The real pi CLI writing the same session file during a ``pi-lsp run`` turn.

pi 1.6.0 takes no lock on session files and keeps its leaf in memory. Measured before this was
fixed: pi_lsp caught up with pi's entries before appending its reply and hung it under pi's
reply (user A, user B, reply B, reply A). Now every entry of pi_lsp's turn hangs on its own
chain: the two turns are sibling branches under the prompt pi found as the file's leaf.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn, message_text
from pi_lsp.session import SessionStore
from tests.interop.cli import PiCli, entries, pi_lsp_env, pi_lsp_run, pi_lsp_settings


def _by_text(path: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in entries(path):
        if entry["type"] == "message" and entry["message"]["role"] in ("user", "assistant"):
            content = entry["message"]["content"]
            out[content[0]["text"] if content else ""] = entry
    return out


def test_pi_writing_during_a_pi_lsp_turn_never_becomes_its_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pi = PiCli(tmp_path / "pi-agent")
    lsp_agent = tmp_path / "pi-lsp-agent"
    file: list[Path] = []
    ran = threading.Event()

    def reply(body: dict[str, Any]) -> Turn | None:
        if message_text(body["messages"][-1]) == "mine" and not ran.is_set():
            ran.set()  # pi resumes the file now, mid-turn, and runs a whole turn of its own
            pi.run(project, "--session", str(file[0]), "theirs")
            return Turn(text="my answer")
        return Turn(text="first answer")

    # pi gets its own server: this one answers pi_lsp and waits for pi inside its reply
    with FakeOpenAI(Script(default=Turn(text="their answer"))) as for_pi:
        pi.point_at(for_pi.base_url)
        with (
            FakeOpenAI(Script(), responder=reply) as fake,
            pi_lsp_env(monkeypatch, lsp_agent, pi_lsp_settings(fake.base_url)),
        ):
            assert pi_lsp_run(project, "first") == 0
            file.extend(sorted((lsp_agent / "sessions").rglob("*.jsonl")))
            assert pi_lsp_run(project, "--session", str(file[0]), "mine") == 0
        [pi_request] = [b for b in for_pi.bodies if b.get("tools")]
    assert ran.is_set()
    found = _by_text(file[0])
    mine, theirs = found["mine"], found["theirs"]
    assert found["my answer"]["parentId"] == mine["id"]  # not under pi's reply
    system = next(e for e in entries(file[0]) if e.get("id") == theirs["parentId"])
    assert system["message"]["role"] == "system"  # pi's prompt, written on its first resume
    assert system["parentId"] == mine["id"]  # pi hung its turn under our unanswered prompt
    assert found["their answer"]["parentId"] == theirs["id"]
    # pi's request had our prompt unanswered before its own: what pi sends is pi's to decide
    users = [message_text(m) for m in pi_request["messages"] if m["role"] == "user"]
    assert users[-2:] == ["mine", "theirs"]
    # The file's last line is our reply, so both programs resume on our chain now.
    store = SessionStore.open(file[0])
    texts = [message_text(m) for m in store.context().messages if m.get("role") != "system"]
    store.close()
    assert texts == ["first", "first answer", "mine", "my answer"]

"""``pi-lsp run`` interrupted: Ctrl-C stores the partial reply as aborted and exits 130."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Turn
from pi_lsp.session import SessionStore
from tests.deadlines import HANG

ROOT = Path(__file__).resolve().parents[3]


def test_ctrl_c_aborts_the_turn_keeps_the_partial_reply_and_exits_130(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    # The reply streams a few chunks, then the stream stays open until the client goes away:
    # only the interrupt can end this turn.
    turn = Turn(text="a partial answer that never ends", chunk_size=4, hang_after=3)
    with FakeOpenAI([turn]) as fake:
        settings = {"apiBase": fake.base_url, "retry": {"enabled": False}}
        (agent / "settings.json").write_text(json.dumps(settings))
        env = {
            **os.environ,
            "PI_CODING_AGENT_DIR": str(agent),
            "OPENAI_API_KEY": "test-key",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        command = [sys.executable, "-m", "pi_lsp", "run", "--cwd", str(project)]
        run = subprocess.Popen(
            [*command, "--model", "openai/fake-model", "hi"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert run.stdout is not None
            # the first streamed text is on stdout (importing litellm first is slow when loaded)
            ready, _, _ = select.select([run.stdout], [], [], HANG)
            assert ready, f"nothing was printed in {HANG} s"
            first = os.read(run.stdout.fileno(), 1 << 16)
            assert first, f"the run ended before streaming: {run.wait()} {run.stderr!r}"
            assert fake.requests, "the model was never called"
            run.send_signal(signal.SIGINT)
            rest, err = run.communicate(timeout=HANG)
            out = first + rest
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    assert run.returncode == 130, err.decode()
    shown = out.decode().strip()
    assert shown and turn.text.startswith(shown)  # what streamed before the interrupt
    files = list((agent / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    reply = SessionStore.open(files[0]).records[-1].value["message"]
    assert reply["role"] == "assistant"
    assert reply["stopReason"] == "aborted"
    assert [block["text"] for block in reply["content"]] == [shown]  # and it is stored

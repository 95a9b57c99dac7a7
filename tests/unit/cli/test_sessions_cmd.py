"""``pi-lsp run`` interrupted: Ctrl-C stores the partial reply as aborted and exits 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Turn
from pi_lsp.session import SessionStore

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
            deadline = time.monotonic() + 120  # importing litellm is slow on a loaded machine
            while not fake.requests and time.monotonic() < deadline and run.poll() is None:
                time.sleep(0.05)
            assert fake.requests, "the model was never called"
            time.sleep(0.5)  # the first chunks have arrived
            run.send_signal(signal.SIGINT)
            out, err = run.communicate(timeout=60)
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

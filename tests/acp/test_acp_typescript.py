"""A second, independent client: the official TypeScript ACP SDK drives ``pi-lsp --acp``.

``make test`` installs ``tests/acp_ts`` (``npm ci``, committed lockfile) before pytest runs.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from pi_lsp.devtools.fake_openai import FakeOpenAI
from tests.acp.conftest import one_call, write_settings
from tests.deadlines import run_child
from tests.e2e.conftest import server_env

CLIENT = Path(__file__).resolve().parents[1] / "acp_ts"


def test_typescript_sdk_client(tmp_path: Path) -> None:
    assert (CLIENT / "node_modules" / "@agentclientprotocol" / "sdk").is_dir(), (
        "run `make acp-ts` (make test does) to install the TypeScript client"
    )
    node = shutil.which("node")
    assert node is not None
    root = tmp_path / "project"
    root.mkdir()
    script = one_call("bash", {"command": "echo hello-ts"}, "Said hello.", "b1")
    with FakeOpenAI(script) as fake:
        write_settings(tmp_path / "agent", fake.base_url)
        env = {**server_env(tmp_path / "agent"), "PI_LSP_PYTHON": sys.executable}
        done = run_child([node, str(CLIENT / "client.mjs"), str(root)], env=env, cwd=CLIENT)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["init"]["protocolVersion"] == 1
    assert seen["answer"]["stopReason"] == "end_turn"
    kinds = [u["sessionUpdate"] for u in seen["updates"]]
    assert "tool_call" in kinds and "agent_message_chunk" in kinds
    final = [
        u for u in seen["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("status")
    ][-1]
    assert final["status"] == "completed" and "hello-ts" in json.dumps(final["content"])
    assert seen["permissions"][0]["toolCallId"] == "b1"
    assert seen["created"]["modes"]["currentModeId"] == "ask"
    assert [u["currentModeId"] for u in seen["updates"] if "currentModeId" in u] == ["read_only"]
    assert [s["sessionId"] for s in seen["listed"]["sessions"]] == [seen["created"]["sessionId"]]
    assert any(n["type"] == "message" for n in seen["tree"]["nodes"])

"""The two command lines on one session file: the real ``pi -p`` and ``pi-lsp run``.

Both talk to the scripted OpenAI-compatible server on 127.0.0.1 (``pi_lsp.devtools.fake_openai``):
pi through a ``models.json`` that points its built-in ``openai`` provider there (the recipe in
``../shared/guides/pi-1.6.md``), pi_lsp through the ``apiBase`` setting. Each program gets its own
agent directory unless a test shares one on purpose. :func:`history` reduces a recorded request to
what the model was told, so the two programs' requests can be compared exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.cli import main as pi_lsp_main
from tests.interop.pi16 import CLI, NODE, require_pi

MODEL = "fake-model"

JsonObject = dict[str, Any]


@dataclass
class PiCli:
    """pi 1.6.0's CLI with its own agent directory (``settings`` go into its settings.json)."""

    agent: Path
    settings: JsonObject = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require_pi()

    def point_at(self, base_url: str) -> None:
        """Write ``models.json`` and ``settings.json``: pi's ``openai`` provider is the server."""
        self.agent.mkdir(parents=True, exist_ok=True)
        model = {"id": MODEL, "contextWindow": 128000, "maxTokens": 4096}
        provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "fake"}
        models = {"providers": {"openai": {**provider, "models": [model]}}}
        (self.agent / "models.json").write_text(json.dumps(models))
        settings = {"defaultProvider": "openai", "defaultModel": MODEL, **self.settings}
        (self.agent / "settings.json").write_text(json.dumps(settings))

    def command(self, *args: str) -> list[str]:
        """The argv of ``pi -p ARGS``."""
        return [str(NODE), str(CLI), "-p", *args]

    def environment(self) -> dict[str, str]:
        """pi's environment: offline, this agent directory, a placeholder key."""
        return {
            **os.environ,
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "PI_CODING_AGENT_DIR": str(self.agent),
            "OPENAI_API_KEY": "fake",
            **self.env,
        }

    def run(self, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        """``pi -p ARGS`` in ``cwd``; fails the test when pi exits non-zero."""
        done = subprocess.run(
            self.command(*args),
            cwd=cwd,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"pi failed ({done.returncode}): {done.stderr[-2000:]}"
        return done

    def start(self, cwd: Path, *args: str) -> subprocess.Popen[str]:
        """``pi -p ARGS`` in the background (the caller waits for it)."""
        return subprocess.Popen(
            self.command(*args),
            cwd=cwd,
            env=self.environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


@contextlib.contextmanager
def pi_lsp_env(
    monkeypatch: pytest.MonkeyPatch, agent: Path, settings: Mapping[str, Any]
) -> Iterator[Path]:
    """``PI_CODING_AGENT_DIR`` = ``agent`` with ``settings.json`` = ``settings``, for ``pi-lsp``."""
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text(json.dumps(settings))
    with monkeypatch.context() as patch:
        patch.setenv("PI_CODING_AGENT_DIR", str(agent))
        patch.setenv("OPENAI_API_KEY", "fake")
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        yield agent


def pi_lsp_run(cwd: Path, *args: str) -> int:
    """``pi-lsp run ARGS --cwd CWD`` in this process (litellm is imported once per suite)."""
    return pi_lsp_main(["run", "--cwd", str(cwd), *args])


def pi_lsp_settings(base_url: str, **extra: Any) -> JsonObject:
    """pi_lsp settings for the scripted server: its endpoint, the model's limits, no retries."""
    model = {"contextWindow": 128000, "maxTokens": 4096}
    return {
        "apiBase": base_url,
        "defaultProvider": "openai",
        "defaultModel": MODEL,
        "models": {f"openai/{MODEL}": model},
        "retry": {"enabled": False},
        **extra,
    }


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content if part.get("type") == "text")


def history(body: Mapping[str, Any]) -> list[JsonObject]:
    """A chat-completions request's conversation, system messages left out, in one shape.

    Text is joined per message (a string or text parts mean the same to the model); tool calls
    keep their id, name and parsed arguments; tool results their call id and text. Everything a
    model sees of the conversation is kept; the two programs' own system prompts are not.
    """
    out: list[JsonObject] = []
    for message in body["messages"]:
        role = message["role"]
        if role in ("system", "developer"):
            continue
        item: JsonObject = {"role": role, "text": _text(message.get("content"))}
        calls = message.get("tool_calls") or []
        if calls:
            item["toolCalls"] = [
                {
                    "id": call["id"],
                    "name": call["function"]["name"],
                    "arguments": json.loads(call["function"]["arguments"] or "{}"),
                }
                for call in calls
            ]
        if role == "tool":
            item["toolCallId"] = message["tool_call_id"]
        images = [
            p
            for p in message.get("content") or []
            if isinstance(p, dict) and p.get("type") == "image_url"
        ]
        if images:
            item["images"] = len(images)
        out.append(item)
    return out


def session_files(agent: Path) -> list[Path]:
    """Every session file under an agent directory's ``sessions/``."""
    return sorted((agent / "sessions").rglob("*.jsonl"))


def parse_lines(data: bytes) -> list[JsonObject]:
    """A session file's lines as JSON (header first)."""
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def entries(path: Path) -> list[JsonObject]:
    """The file's lines as JSON (header first)."""
    return parse_lines(path.read_bytes())

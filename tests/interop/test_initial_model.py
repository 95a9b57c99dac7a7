"""The model a session starts with when none is named: pi_lsp against the real pi 1.6.0.

pi is asked offline: ``pi --mode rpc`` answers ``get_state`` with the model it chose, before
any model call (no server needed). Each case gives both programs the same provider keys (only
those: the rest of the environment's keys are removed), the same ``defaultProvider`` /
``defaultModel`` and, for the restore cases, a copy of the same session file. pi_lsp's answer is
:func:`pi_lsp.agent.choose_model_ref` over that file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pi_lsp.agent import choose_model_ref
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings
from tests.interop.pi16 import CLI, NODE, require_pi

_KEYISH = ("_API_KEY", "_TOKEN", "_CREDENTIALS")


def _without_keys(environ: dict[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in environ.items()
        if not k.endswith(_KEYISH) and not k.startswith(("AWS_", "GOOGLE_", "GCLOUD_"))
    }


@dataclass(frozen=True)
class Case:
    keys: tuple[str, ...]
    default: tuple[str, str] | None = None
    session: tuple[str, str] | None = None
    """provider and model of a session that has one exchange."""
    extra: dict[str, str] = field(default_factory=dict)


CASES = {
    "no key": Case(()),
    "openai key": Case(("OPENAI_API_KEY",)),
    "openai and anthropic keys": Case(("OPENAI_API_KEY", "ANTHROPIC_API_KEY")),
    "gemini and xai keys": Case(("XAI_API_KEY", "GEMINI_API_KEY")),
    "an anthropic oauth token": Case(("ANTHROPIC_OAUTH_TOKEN",)),
    "bedrock profile": Case((), extra={"AWS_PROFILE": "dev"}),
    "pi's vercel variable": Case(("AI_GATEWAY_API_KEY",)),
    "the default with its key": Case(
        ("OPENAI_API_KEY", "XAI_API_KEY"), default=("xai", "grok-4.7")
    ),
    "the default without its key": Case(("OPENAI_API_KEY",), default=("xai", "grok-4.7")),
    "the default and no key": Case((), default=("xai", "grok-4.7")),
    "the session's model with its key": Case(
        ("OPENAI_API_KEY", "GEMINI_API_KEY"),
        default=("openai", "gpt-6.2-sol"),
        session=("google", "gemini-4-argon"),
    ),
    "the session's model without its key": Case(
        ("ANTHROPIC_API_KEY",), default=("xai", "grok-4.7"), session=("google", "gemini-4-argon")
    ),
}


def _session_file(folder: Path, cwd: Path, provider: str, model: str) -> Path:
    store = SessionStore.create(str(cwd), directory=folder)
    store.append_model_change(provider, model)
    store.append_message(user("hi"))
    store.append_message(
        assistant("hello", provider=provider, model=model, api="openai-completions")
    )
    return Path(store.path)


def _pi_choice(case: Case, agent: Path, cwd: Path, session: Path | None) -> str | None:
    agent.mkdir(parents=True, exist_ok=True)
    if case.default:
        settings = {"defaultProvider": case.default[0], "defaultModel": case.default[1]}
        (agent / "settings.json").write_text(json.dumps(settings))
    env = {
        **_without_keys(dict(os.environ)),
        "HOME": str(agent.parent),  # no ~/.aws, no gcloud credentials
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "PI_CODING_AGENT_DIR": str(agent),
        **dict.fromkeys(case.keys, "k"),
        **case.extra,
    }
    where = ["--session", str(session)] if session else ["--no-session"]
    done = subprocess.run(
        [str(NODE), str(CLI), "--mode", "rpc", *where],
        input=json.dumps({"type": "get_state", "id": "state"}) + "\n",
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        if answer.get("id") == "state":
            model = answer["data"].get("model") or {}
            ref = f"{model.get('provider')}/{model.get('id')}"
            return None if ref in ("unknown/unknown", "None/None") else ref
    raise AssertionError(f"pi answered no get_state ({done.returncode}): {done.stderr[-2000:]}")


@pytest.mark.parametrize("name", list(CASES))
def test_pi_lsp_picks_the_model_pi_picks(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_pi()
    case = CASES[name]
    cwd = tmp_path / "project"
    cwd.mkdir()
    session = _session_file(tmp_path / "ours", cwd, *case.session) if case.session else None
    copy = None
    if session is not None:  # pi may add lines on open: each program gets its own copy
        (tmp_path / "theirs").mkdir()
        copy = Path(shutil.copy(session, tmp_path / "theirs" / session.name))
    expected = _pi_choice(case, tmp_path / "pi" / "agent", cwd, copy)

    for variable in list(os.environ):
        if variable not in _without_keys({variable: ""}):
            monkeypatch.delenv(variable)
    for variable in case.keys:
        monkeypatch.setenv(variable, "k")
    for variable, value in case.extra.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("HOME", str(tmp_path / "pi"))
    settings = Settings(
        defaultProvider=case.default[0] if case.default else None,
        defaultModel=case.default[1] if case.default else None,
    )
    store = SessionStore.open(session) if session else SessionStore.in_memory(str(cwd))
    ours = choose_model_ref(store, settings, None)
    assert (str(ours) if ours else None) == expected

"""pi 1.6.0's custom session folder: the ``sessionDir`` setting and ``PI_CODING_AGENT_SESSION_DIR``.

With either set, pi writes every project's sessions side by side in that one folder and
``--continue`` picks the newest one whose header names the cwd. pi_lsp must find, continue and
create sessions there too, so the two programs keep continuing one file (before, each continued
only its own).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.session.listing import SessionLister
from tests.interop.cli import PiCli, entries, history, pi_lsp_run, pi_lsp_settings


def _user_texts(path: Path) -> list[str]:
    return [
        e["message"]["content"][0]["text"]
        for e in entries(path)
        if e["type"] == "message" and e["message"]["role"] == "user"
    ]


@pytest.mark.parametrize("how", ["setting", "environment"])
def test_both_programs_continue_one_file_in_the_custom_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    other = tmp_path / "other-project"
    other.mkdir()
    custom = tmp_path / "all-sessions"
    agent = tmp_path / "agent"  # one agent directory, as a user has
    pi = PiCli(agent)
    with FakeOpenAI(Script(default=Turn(text="an answer"))) as fake:
        pi.point_at(fake.base_url)
        ours = pi_lsp_settings(fake.base_url)
        settings = json.loads((agent / "settings.json").read_text())
        settings.update({k: v for k, v in ours.items() if k not in settings})
        if how == "setting":
            settings["sessionDir"] = str(custom)
        else:
            pi.env["PI_CODING_AGENT_SESSION_DIR"] = str(custom)
            monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(custom))
        (agent / "settings.json").write_text(json.dumps(settings))
        monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
        monkeypatch.setenv("OPENAI_API_KEY", "fake")

        pi.run(other, "elsewhere")  # another project's session, newer than none: never picked
        pi.run(project, "one")
        [elsewhere] = [p for p in custom.glob("*.jsonl") if "elsewhere" in _user_texts(p)]
        assert pi_lsp_run(project, "--continue", "two") == 0
        assert pi_lsp_run(other, "--continue", "two elsewhere") == 0
        pi.run(project, "-c", "three")
        assert pi_lsp_run(project, "--continue", "four") == 0
        last_request = history(fake.bodies[-1])

    files = sorted(custom.glob("*.jsonl"))
    assert len(files) == 2, files  # one per project, nothing under <agentDir>/sessions
    assert not (agent / "sessions").exists() or not list((agent / "sessions").rglob("*.jsonl"))
    [mine] = [p for p in files if p != elsewhere]
    assert _user_texts(mine) == ["one", "two", "three", "four"]
    assert _user_texts(elsewhere) == ["elsewhere", "two elsewhere"]
    assert [m["text"] for m in last_request if m["role"] == "user"] == [
        "one",
        "two",
        "three",
        "four",
    ]
    listed = SessionLister().list_cwd(str(project), agent, str(custom))
    assert [info.path for info in listed] == [str(mine)]  # the other project's is not listed

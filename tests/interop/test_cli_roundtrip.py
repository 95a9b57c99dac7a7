"""Round trips with the real CLIs, both ways: one program writes, the other resumes the file.

pi_lsp writes a turn with a tool call and a compaction, then ``pi -p --session FILE`` resumes it;
pi writes tool calls, a ``length`` stop it recovers from (a ``context_edit`` and a compaction),
then ``pi-lsp run --session FILE`` resumes it. Each time the resuming program's request must hold
exactly the history the writing program would send for the same prompt (both resume identical
copies; their own system prompts aside), its entries must hang under the file's leaf, and the
bytes already in the file must stay as they were (a resume only appends).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, ScriptToolCall, ScriptUsage, Turn
from tests.interop.cli import (
    PiCli,
    entries,
    history,
    parse_lines,
    pi_lsp_env,
    pi_lsp_run,
    pi_lsp_settings,
    session_files,
)

READ = ScriptToolCall(name="read", arguments={"path": "notes.txt"})


def _summaries(body: dict[str, Any]) -> Turn | None:
    """Summary requests carry no tools (both programs): answer them with a fixed summary."""
    return None if body.get("tools") else Turn(text="SUMMARY: the user read notes.txt")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("the launch code is 1234\n")
    return cwd


def _bodies_with_tools(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [b for b in fake.bodies if b.get("tools")]


def _resume_both(
    file: Path, project: Path, pi: PiCli, monkeypatch: pytest.MonkeyPatch, agent: Path, prompt: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bytes, bytes]:
    """pi and pi_lsp each resume a copy of ``file`` with ``prompt``: (pi's history, pi_lsp's
    history, pi's copy after, pi_lsp's copy after)."""
    for_pi = file.with_name("for-pi.jsonl")
    for_lsp = file.with_name("for-pi-lsp.jsonl")
    shutil.copyfile(file, for_pi)
    shutil.copyfile(file, for_lsp)
    with FakeOpenAI(Script(default=Turn(text="pi answers"))) as fake:
        pi.point_at(fake.base_url)
        pi.run(project, "--session", str(for_pi), prompt)
        theirs = _bodies_with_tools(fake)
    with FakeOpenAI(Script(default=Turn(text="pi_lsp answers"))) as fake:
        with pi_lsp_env(monkeypatch, agent, pi_lsp_settings(fake.base_url)):
            assert pi_lsp_run(project, "--session", str(for_lsp), prompt) == 0
        ours = _bodies_with_tools(fake)
    assert len(theirs) == 1 and len(ours) == 1, (len(theirs), len(ours))
    return history(theirs[0]), history(ours[0]), for_pi.read_bytes(), for_lsp.read_bytes()


def _check_resumed(before: bytes, after: bytes, prompt: str) -> None:
    """Only appended; the prompt is a child of the file's old leaf (a system entry may precede)."""
    assert after.startswith(before), "the resume rewrote bytes already in the file"
    old = [e for e in parse_lines(before) if e["type"] != "session"]
    new = parse_lines(after)[len(old) + 1 :]
    user = next(e for e in new if e.get("message", {}).get("role") == "user")
    assert user["message"]["content"][0]["text"] == prompt
    chain = {e["id"]: e["parentId"] for e in new}
    parent = user["parentId"]
    while parent in chain:  # pi puts its system message first, under the old leaf
        parent = chain[parent]
    assert parent == old[-1]["id"], "the resumed turn does not continue the file's leaf"


def test_a_session_pi_lsp_wrote_resumes_in_pi_with_the_same_history(
    tmp_path: Path,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = tmp_path / "pi-lsp-agent"
    big = ScriptUsage(prompt_tokens=120_000, completion_tokens=9)  # past window - reserve
    script = Script(
        turns=[
            Turn(tool_calls=[READ]),
            Turn(text="It holds a launch code.", usage=big),
            Turn(tool_calls=[READ]),
            Turn(text="It is 1234."),
        ]
    )
    with FakeOpenAI(script, responder=_summaries) as fake:
        settings = pi_lsp_settings(fake.base_url, compaction={"keepRecentTokens": 10})
        with pi_lsp_env(monkeypatch, agent, settings):
            assert pi_lsp_run(project, "read notes.txt") == 0
            [file] = session_files(agent)
            assert pi_lsp_run(project, "--session", str(file), "read it again") == 0
    kinds = [e["type"] for e in entries(file)]
    assert "compaction" in kinds, capsys.readouterr().err
    before = file.read_bytes()

    pi = PiCli(tmp_path / "pi-agent")
    prompt = "and now?"
    theirs, ours, pi_after, lsp_after = _resume_both(file, project, pi, monkeypatch, agent, prompt)
    assert theirs == ours
    assert theirs[0]["text"].startswith("The conversation history before this point was compacted")
    assert [m["role"] for m in theirs[-5:]] == ["user", "assistant", "tool", "assistant", "user"]
    assert theirs[-1] == {"role": "user", "text": prompt}
    _check_resumed(before, pi_after, prompt)
    _check_resumed(before, lsp_after, prompt)


def test_a_session_pi_wrote_resumes_in_pi_lsp_with_the_same_history(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pi = PiCli(tmp_path / "pi-agent", {"compaction": {"keepRecentTokens": 20}})
    cut = ScriptUsage(prompt_tokens=50, completion_tokens=3)  # below maxTokens: recoverable
    script = Script(
        turns=[
            Turn(tool_calls=[READ]),
            Turn(text="It holds a launch code. " * 10),
            Turn(text="The code is", finish_reason="length", usage=cut),
            Turn(text="The code is 1234."),
            Turn(tool_calls=[READ]),
            Turn(text="Still 1234."),
        ]
    )
    with FakeOpenAI(script, responder=_summaries) as fake:
        pi.point_at(fake.base_url)
        pi.run(project, "read notes.txt")
        [file] = session_files(pi.agent)
        pi.run(project, "--session", str(file), "what is the code?")
        pi.run(project, "--session", str(file), "read it again")
    written = entries(file)
    kinds = [e["type"] for e in written]
    assert "context_edit" in kinds and "compaction" in kinds, kinds
    omitted = next(e for e in written if e["type"] == "context_edit")
    target = next(e for e in written if e.get("id") == omitted["targetId"])
    assert target["message"]["stopReason"] == "length" and omitted["replacement"] is None
    before = file.read_bytes()

    prompt = "and now?"
    agent = tmp_path / "pi-lsp-agent"
    theirs, ours, pi_after, lsp_after = _resume_both(file, project, pi, monkeypatch, agent, prompt)
    assert ours == theirs
    texts = [m["text"] for m in ours]
    assert "The code is" not in texts  # the cut reply stays omitted
    assert "The code is 1234." in texts
    assert ours[-4]["toolCalls"][0]["name"] == "read" and ours[-3]["role"] == "tool"
    assert theirs[-1] == {"role": "user", "text": prompt}
    _check_resumed(before, pi_after, prompt)
    _check_resumed(before, lsp_after, prompt)

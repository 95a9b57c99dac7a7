"""kill -9 during a session's first turn and during compaction: nothing acknowledged is lost.

Each round forks a child from this process (litellm already imported, so a round costs a fork,
not a start-up) that runs the real agent (litellm against the scripted server, which runs in its
own process) on a real session file and reports every entry id once its append returned, plus a
line per agent event. The test kills the child with SIGKILL after a random number of those
lines, then checks the file: it loads, it has exactly one header, nothing but a torn last line
is reported, and every reported entry is in it. Sixty kills in all (issue 9, items 10 and 11).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import select
import shutil
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent import AgentOptions
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.agent.llm import litellm_module
from pi_lsp.devtools.builders import FAKE_MODEL, assistant, user
from pi_lsp.devtools.fake_script import Rule, Script, Turn
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings
from tests.deadlines import HANG
from tests.integration.fake_openai_cli import fake_openai_cli

ROUNDS = 30
"""Kills per scenario (first turn, compaction)."""
SUMMARY = "## Goal\nKeep every acknowledged entry\n\n## Progress\n- [x] survived a kill"
REPLY = "A reply streamed in many small pieces, so that a kill can land in the middle of it."

Report = Callable[[str], None]
Job = Callable[[Report], Awaitable[None]]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The scripted provider in its own process (this one forks: it must not run threads)."""
    script = Script(
        rules=[
            Rule(
                any_message_contains="<conversation>",
                reply=Turn(text=SUMMARY, chunk_size=6, chunk_delay=0.002),
            )
        ],
        default=Turn(text=REPLY, chunk_size=3, chunk_delay=0.002),
    )
    path = tmp_path_factory.mktemp("fake") / "script.json"
    path.write_text(script.model_dump_json())
    with fake_openai_cli(path) as (url, _process):
        yield url


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm_module()  # imported once here; every forked child inherits it
    assert threading.active_count() == 1, "forking needs a single-threaded parent"
    project = tmp_path / "proj"
    project.mkdir()
    return project


def settings(base_url: str) -> Settings:
    return Settings.model_validate(
        {
            "apiBase": base_url,
            "retry": {"enabled": False},
            "models": {"openai/fake-model": {"contextWindow": 100_000}},
            "compaction": {"keepRecentTokens": 20},
        }
    )


async def agent_for(store: SessionStore, project: Path, base_url: str, report: Report) -> Any:
    """The real agent on ``store``; reports each stored entry id and each event."""
    store.add_listener(
        lambda records, _external: [report(f"ack {r.id} {r.type} {r.role}") for r in records]
    )
    agent = await create_agent_session(
        store, str(project), settings(base_url), AgentOptions(model="openai/fake-model")
    )
    agent.subscribe(lambda event: report(f"event {event['type']}"))
    report("ready")
    return agent


def first_turn_job(folder: Path, project: Path, base_url: str, text: str) -> Job:
    """A new session in ``folder`` and one prompt."""

    async def job(report: Report) -> None:
        store = SessionStore.create(str(project), directory=folder)
        agent = await agent_for(store, project, base_url, report)
        await agent.prompt(text)

    return job


def compaction_job(path: Path, project: Path, base_url: str) -> Job:
    """Open ``path`` and compact it."""

    async def job(report: Report) -> None:
        agent = await agent_for(SessionStore.open(path), project, base_url, report)
        await agent.compact()

    return job


def kill_during(
    job: Job, kill_after: int = 10**9, seconds: float | None = None
) -> tuple[list[list[str]], bool, float]:
    """Run ``job`` in a forked child; SIGKILL it after ``kill_after`` report lines, or
    ``seconds`` after it reported ``ready``.

    Returns the entries it acknowledged (``[id, type, role]``), whether it was killed (False:
    it finished first) and the seconds from ``ready`` to its end.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the job, then leave without any clean-up
        os.close(read_fd)
        status = 0
        try:
            asyncio.run(job(lambda line: os.write(write_fd, line.encode() + b"\n") and None))
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    lines: list[bytes] = []
    buffer = b""
    killed = False
    deadline = time.monotonic() + HANG
    kill_at: float | None = None
    ready_at: float | None = None
    while True:
        wait = deadline if kill_at is None else min(deadline, kill_at)
        ready, _, _ = select.select([read_fd], [], [], max(0.0, wait - time.monotonic()))
        if not ready and kill_at is not None and time.monotonic() >= kill_at:
            os.kill(pid, signal.SIGKILL)
            killed = True
            break
        assert ready, f"the child neither reported nor ended within {HANG} s"
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        lines += complete
        if ready_at is None and b"ready" in complete:
            ready_at = time.monotonic()
            kill_at = None if seconds is None else ready_at + seconds
        if len(lines) >= kill_after:
            os.kill(pid, signal.SIGKILL)
            killed = True
            break
    _, status = os.waitpid(pid, 0)
    span = time.monotonic() - (ready_at or time.monotonic())
    # lines the child wrote before the kill landed were acknowledged too
    os.set_blocking(read_fd, False)
    try:
        while chunk := os.read(read_fd, 65536):
            buffer += chunk
    except BlockingIOError:
        pass
    os.close(read_fd)
    lines += buffer.split(b"\n")[:-1]
    if not killed:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the child's job failed"
    acks = [line.decode().split()[1:] for line in lines if line.startswith(b"ack ")]
    return acks, killed, span


def assert_intact(path: Path, acks: list[list[str]]) -> SessionStore:
    """One header, nothing damaged but a torn last line, every acknowledged entry there."""
    acknowledged = [entry_id for entry_id, _type, _role in acks]
    raw = path.read_bytes()
    headers = [line for line in raw.split(b"\n") if b'"type":"session"' in line]
    assert len(headers) == 1, f"{path}: {len(headers)} headers"
    store = SessionStore.open(path)
    problems = [d.reason for d in store.diagnostics if not d.reason.startswith("incomplete last")]
    assert problems == [], problems
    missing = set(acknowledged) - {r.id for r in store.records}
    assert not missing, f"acknowledged but lost: {sorted(missing)}"
    return store


def test_kill_9_during_a_first_turn_loses_nothing_acknowledged(env: Path, base_url: str) -> None:
    rng = random.Random(9)
    sessions = env.parent / "sessions"
    kills = survived_prompts = 0
    for round_number in range(ROUNDS):
        folder = sessions / str(round_number)

        first_turn = first_turn_job(folder, env, base_url, f"question {round_number}")
        acks, killed, _ = kill_during(first_turn, rng.randint(1, 40))
        kills += killed
        files = list(folder.glob("*.jsonl")) if folder.exists() else []
        assert len(files) <= 1
        if not files:  # only setup entries (model, thinking level) may wait in memory, as in pi
            messages = [ack for ack in acks if ack[1] == "message"]
            assert not messages, f"round {round_number}: {messages} acknowledged, no file"
            continue
        store = assert_intact(files[0], acks)
        survived_prompts += any(r.role == "user" for r in store.records)
    assert kills >= ROUNDS * 0.8, kills  # the kills really landed during the turn
    assert survived_prompts >= ROUNDS // 2  # many kills came after the prompt was stored


def test_kill_9_during_compaction_loses_nothing_acknowledged(env: Path, base_url: str) -> None:
    base = _long_session(env, env.parent / "base", turns=6)
    assert base.path is not None
    rng = random.Random(11)
    kills = compacted = 0
    span = 0.0
    for round_number in range(-1, ROUNDS):  # round -1 measures an unkilled compaction
        path = env.parent / "rounds" / f"{round_number}.jsonl"
        path.parent.mkdir(exist_ok=True)
        shutil.copyfile(base.path, path)
        compaction = compaction_job(path, env, base_url)
        if round_number < 0:
            acks, _, span = kill_during(compaction)
            assert [ack[1] for ack in acks] == ["compaction"]
            continue
        if round_number % 3 == 2:  # right after the entry was reported written
            acks, killed, _ = kill_during(compaction, kill_after=2)
        else:  # anywhere while the summary streams in
            acks, killed, _ = kill_during(compaction, seconds=span * rng.uniform(0.0, 1.0))
        kills += killed
        store = assert_intact(path, acks)
        assert store.entry_count >= base.entry_count
        compacted += any(r.type == "compaction" for r in store.records)
    assert kills >= ROUNDS // 3, kills  # the kills really landed during the compaction
    assert compacted >= ROUNDS // 3  # every third round was killed after the write


def _long_session(cwd: Path, directory: Path, *, turns: int) -> SessionStore:
    """A session of ``turns`` long exchanges (enough for a compaction to cut)."""
    store = SessionStore.create(str(cwd), directory=directory)
    for i in range(turns):
        store.append_message(user(f"q{i} " * 30, ts=1))
        store.append_message(assistant(f"a{i} " * 30, **FAKE_MODEL, ts=2))
    return store


def test_the_summary_of_a_compaction_is_what_the_script_sends(env: Path, base_url: str) -> None:
    """The scripted summary really reaches the file when nobody kills the child (a check that
    the kill tests exercise a compaction that writes)."""
    base = _long_session(env, env.parent / "once", turns=4)
    assert base.path is not None
    path = base.path
    acks, killed, _ = kill_during(compaction_job(path, env, base_url))
    assert not killed and [ack[1] for ack in acks] == ["compaction"]
    entry = json.loads(path.read_text().splitlines()[-1])
    assert entry["type"] == "compaction" and entry["id"] == acks[0][0]
    assert entry["summary"].startswith("## Goal")

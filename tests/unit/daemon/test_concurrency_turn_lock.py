"""The cross-process turn lock: a full disk never leaks it, and ``pi-lsp run`` takes it too."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.daemon.concurrency import SessionBusyError, TurnLock
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.session import SessionStore
from tests.deadlines import run_child

ROOT = Path(__file__).resolve().parents[3]

DISK_FULL_LOCK = textwrap.dedent(
    """
    import resource, signal, sys
    from pathlib import Path
    from pi_lsp.daemon.concurrency import SessionBusyError, TurnLock

    folder = Path(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))  # "disk full" for every write
    first = TurnLock("session.jsonl", folder)
    try:
        first.acquire()
        outcome = "acquired"
    except OSError as exc:
        outcome = f"failed: {exc}"
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # the disk has room again
    first.release()
    second = TurnLock("session.jsonl", folder)  # the next turn, in this process
    try:
        second.acquire()
        second.release()
        print(outcome, "| the next turn takes the lock")
    except SessionBusyError as exc:
        print(outcome, "|", exc)
    """
)


def test_a_full_disk_while_taking_the_lock_never_leaks_it(tmp_path: Path) -> None:
    done = run_child([sys.executable, "-c", DISK_FULL_LOCK, str(tmp_path)], cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "acquired | the next turn takes the lock"
    # and another process can take it too (nothing was left held)
    lock = TurnLock("session.jsonl", tmp_path)
    lock.acquire()
    lock.release()


def test_the_lock_follows_the_real_file_whatever_path_names_it(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    a = TurnLock.for_session(real / "s.jsonl", "id", tmp_path / "agent")
    b = TurnLock.for_session(tmp_path / "link" / "s.jsonl", "id", tmp_path / "agent")
    assert a.path == b.path and a.path.parent == tmp_path / "agent" / "pi-lsp" / "locks"
    with (
        a,
        pytest.raises(SessionBusyError, match=rf"busy in another process \(pid {os.getpid()}\)"),
    ):
        b.acquire()


def _settings(agent: Path, api_base: str) -> None:
    settings = {"apiBase": api_base, "retry": {"enabled": False}}
    (agent / "settings.json").write_text(json.dumps(settings))


def _session(tmp_path: Path) -> Path:
    store = SessionStore.create(str(tmp_path), directory=tmp_path / "sessions")
    store.append_message(user("first"))
    store.append_message(assistant("first answer"))
    assert store.path is not None
    return store.path


def test_run_session_refuses_while_a_daemon_turn_holds_the_lock(
    tmp_path: Path, agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(agent_dir, "http://127.0.0.1:9/v1")  # never reached: the lock is checked first
    path = _session(tmp_path)
    before = path.read_bytes()
    daemon_turn = TurnLock.for_session(path, "ignored", agent_dir)
    with daemon_turn:
        status = main(["run", "--session", str(path), "--model", "openai/fake-model", "hi"])
    assert status == 1
    err = capsys.readouterr().err
    assert f"busy in another process (pid {os.getpid()})" in err, err
    assert path.read_bytes() == before  # nothing stored as the reply to someone else's turn


def test_run_session_holds_the_lock_for_its_turn_and_gives_it_back(
    tmp_path: Path, agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _session(tmp_path)
    seen_busy: list[bool] = []

    def reply(_request: object) -> Turn:
        probe = TurnLock.for_session(path, "ignored", agent_dir)
        try:
            probe.acquire()
            probe.release()
            seen_busy.append(False)
        except SessionBusyError:
            seen_busy.append(True)
        return Turn(text="second answer")

    with FakeOpenAI(Script(), responder=reply) as fake:
        _settings(agent_dir, fake.base_url)
        status = main(["run", "--session", str(path), "--model", "openai/fake-model", "again"])
    assert status == 0, capsys.readouterr().err
    assert seen_busy == [True]  # held while the model answered
    TurnLock.for_session(path, "ignored", agent_dir).acquire()  # and free afterwards
    last = SessionStore.open(path).records[-1].value
    assert last["message"]["content"][0]["text"] == "second answer"

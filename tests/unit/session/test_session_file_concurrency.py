"""One writer at a time: locked appends, other writers' lines indexed first, crash safety (D2)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pi_lsp.devtools.builders import Clock, assistant, counting_uuids, fresh_store, user
from pi_lsp.session import SessionStore

WRITER = textwrap.dedent(
    """
    import sys
    from pi_lsp.session import SessionStore
    sys.path.insert(0, {root!r})
    from pi_lsp.devtools.builders import assistant, user

    store = SessionStore.open(sys.argv[1])
    tag, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        store.append_message(user(f"{{tag}}-{{i}}"))
        store.append_message(assistant(f"{{tag}}-{{i}}-reply"))
    print(store.entry_count)
    """
)


def started_session(tmp_path: Path) -> Path:
    s = fresh_store("/p", tmp_path, turns=[("start", "ready")])
    assert s.path is not None
    return s.path


def test_two_processes_append_to_one_file_without_losing_or_mixing(tmp_path: Path) -> None:
    path = started_session(tmp_path)
    script = WRITER.format(root=str(Path(__file__).resolve().parents[3]))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path), tag, "150"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in ("A", "B")
    ]
    seen = [int(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # no interleaved or glued lines
    store = SessionStore.open(path)
    assert store.diagnostics == []
    assert store.entry_count == 2 + 600
    texts = {m["content"][0]["text"] for r in store.records if (m := r.value["message"])}
    assert {f"{t}-{i}" for t in "AB" for i in range(150)} <= texts
    # whoever finished last had indexed every line of the other before its own last append
    assert max(seen) == 602


def test_entries_appended_elsewhere_are_indexed_before_the_next_append(tmp_path: Path) -> None:
    path = started_session(tmp_path)
    mine = SessionStore.open(path, clock=Clock(3e9), uuids=counting_uuids())
    other = SessionStore.open(path, clock=Clock(4e9), uuids=lambda: os.urandom(16).hex())
    seen: list[list[str]] = []
    mine.add_listener(
        lambda records, external: seen.append([r.id for r in records]) if external else None
    )
    theirs = other.append_message(user("from the other editor"))
    new = mine.append_message(user("mine"))
    assert seen == [[theirs]]
    assert mine.require(theirs).value["message"]["content"][0]["text"] == "from the other editor"
    # the other writer continued our leaf, so we continue after its entry instead of beside it
    assert mine.require(new).parent_id == theirs
    assert other.append_message(user("and again"))
    assert other.require(new).parent_id == theirs


def test_a_diverged_leaf_stays_put(tmp_path: Path) -> None:
    path = started_session(tmp_path)
    mine = SessionStore.open(path, clock=Clock(3e9), uuids=counting_uuids())
    other = SessionStore.open(path, clock=Clock(4e9), uuids=lambda: os.urandom(16).hex())
    first = mine.records[0].id
    mine.branch(first)
    other.append_message(user("elsewhere"))
    new = mine.append_message(assistant("branching here"))
    assert mine.require(new).parent_id == first


def test_crash_safety_sigkill_while_appending(tmp_path: Path) -> None:
    """200 children are SIGKILLed at random points; every append that returned survives."""
    path = started_session(tmp_path)
    rng = random.Random(7)
    confirmed: set[str] = set()
    big = "x" * 200_000
    for _round in range(200):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: append until killed, reporting each id once its append returned
            os.close(read_fd)
            try:
                store = SessionStore.open(path)
                for i in range(10_000):
                    text = big if i % 7 == 3 else f"r{_round}-{i}"
                    entry_id = store.append_message(user(text))
                    os.write(write_fd, entry_id.encode() + b"\n")
            finally:
                os._exit(0)
        os.close(write_fd)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(read_fd, "rb") as reader:
            reported = reader.read().split(b"\n")
        confirmed.update(line.decode() for line in reported[:-1] if len(line) == 8)
        store = SessionStore.open(path)
        ids = {r.id for r in store.records}
        missing = confirmed - ids
        assert not missing, f"round {_round}: lost {sorted(missing)[:3]}"
    assert len(confirmed) > 200


def test_appending_and_rebuilding_context_neither_rereads_nor_rewalks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = started_session(tmp_path)
    store = SessionStore.open(path, clock=Clock(5e9), uuids=counting_uuids())
    store.context()

    def forbidden(*_args: object, **_kwargs: object) -> bytes:
        raise AssertionError("the session file was read again or history re-walked")

    header_size = len(path.read_bytes().split(b"\n", 1)[0]) + 1
    real_pread = os.pread

    def header_check_only(fd: int, size: int, offset: int) -> bytes:
        # each append compares the header bytes (item 13 of issue 9): that read is allowed
        if offset != 0 or size != header_size:
            forbidden()
        return real_pread(fd, size, offset)

    with monkeypatch.context() as patched:
        patched.setattr(Path, "read_bytes", forbidden)
        patched.setattr(os, "pread", header_check_only)
        patched.setattr(os, "read", forbidden)
        patched.setattr("pi_lsp.session.context.path_to_root", forbidden)
        for i in range(20):
            store.append_message(user(f"q{i}"))
            store.append_message(assistant(f"a{i}"))
            context = store.context()
            assert context.messages[-1]["content"][0]["text"] == f"a{i}"
    assert store.context().to_json() == SessionStore.open(path).context().to_json()

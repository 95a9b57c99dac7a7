"""One writer at a time: locked appends, other writers' lines indexed first, crash safety (D2)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import traceback
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


KILL_POINTS = ("waiting", "locked", "mid-write", "written", "free")
"""Where the last append of a round is when the child is SIGKILLed: waiting for its go, holding
the lock before writing, after part of its line reached the file (a short write, what the kernel
does when a fatal signal arrives inside a large write), after the write returned but before it
was reported, or nowhere chosen (killed at once, wherever the kernel has it)."""


def _writer_child(path: Path, go: int, report: int, tag: str, point: str, cut: float) -> None:
    """Append one entry per go byte, reporting each id once its append returned; at the last one
    stop at ``point`` (said on ``report``) and wait to be killed."""
    from pi_lsp.session import session_file

    real_write_all = session_file.SessionWriter._write_all

    def armed_write_all(fd: int, payload: bytes) -> None:
        if point == "mid-write":  # part of the line reaches the file, as a cut-short write
            real_write_all(fd, payload[: max(1, int(len(payload) * cut))])
        if point in ("locked", "mid-write"):
            os.write(report, b"armed\n")
            os.read(go, 1)  # never answered: the kill comes here
        real_write_all(fd, payload)

    store = SessionStore.open(path)
    i = 0
    while (order := os.read(go, 1)) == b"n":
        os.write(report, store.append_message(user(f"{tag}-{i}")).encode() + b"\n")
        i += 1
    assert order == b"l"
    if point == "waiting":
        os.write(report, b"armed\n")
        os.read(go, 1)
    session_file.SessionWriter._write_all = staticmethod(armed_write_all)  # type: ignore[method-assign]  # this child only
    entry_id = store.append_message(user("x" * 200_000 + tag))
    if point == "written":
        os.write(report, b"armed\n")
        os.read(go, 1)
    os.write(report, entry_id.encode() + b"\n")
    os.read(go, 1)  # a "free" kill may come after all this: still a kill, never an exit


def test_crash_safety_sigkill_while_appending(tmp_path: Path) -> None:
    """Children are SIGKILLed at every point of an append; every append that returned survives,
    the file loads, a torn line is reported and skipped, and the next append starts afresh.

    The work is fixed (the test orders each append and waits for its report), so neither the
    outcome nor the number of confirmed appends depends on the machine's speed.
    """
    path = started_session(tmp_path)
    rng = random.Random(7)
    confirmed: set[str] = set()
    torn_rounds = 0
    for round_ in range(40):
        point = KILL_POINTS[round_ % len(KILL_POINTS)]
        appends, cut = rng.randint(0, 3), rng.uniform(0.01, 0.99)
        go_r, go_w = os.pipe()
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(go_w)
            os.close(report_r)
            try:
                _writer_child(path, go_r, report_w, f"r{round_}", point, cut)
            except BaseException:
                traceback.print_exc()  # the parent then reads an early end of the reports
            finally:
                os._exit(0)
        os.close(go_r)
        os.close(report_w)
        reports = os.fdopen(report_r, "rb")
        try:
            for _ in range(appends):
                os.write(go_w, b"n")
                entry_id = reports.readline()
                assert len(entry_id) == 9, f"round {round_}: the child reported {entry_id!r}"
                confirmed.add(entry_id[:8].decode())
            os.write(go_w, b"l")
            if point != "free":
                assert reports.readline() == b"armed\n", f"round {round_}: the child ended early"
        finally:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            late = reports.read().split(b"\n")  # "free": the last id, if it was reported
            reports.close()
            os.close(go_w)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        confirmed.update(line.decode() for line in late if len(line) == 8)
        data = path.read_bytes()
        store = SessionStore.open(path)
        missing = confirmed - {r.id for r in store.records}
        assert not missing, f"round {round_} ({point}): lost {sorted(missing)}"
        lines = data.split(b"\n")
        bad = [n for n, line in enumerate(lines[:-1], 1) if not _is_json(line)]
        reported = [d.line for d in store.diagnostics]
        if data.endswith(b"\n"):
            assert bad == reported, f"round {round_} ({point})"
        else:  # the kill tore the last line: it is skipped and reported as torn
            torn_rounds += 1
            assert point in ("mid-write", "free")
            assert reported == [*bad, len(lines)]
            assert "torn write" in store.diagnostics[-1].reason
        # every unparsable line is a torn one that a later append left alone: it holds one
        # entry's first bytes and nothing glued after them
        for n in bad:
            assert lines[n - 1][:1] == b"{" and lines[n - 1].count(b'"parentId"') <= 1
    assert torn_rounds >= 40 // len(KILL_POINTS)  # every "mid-write" round tore its line
    final = SessionStore.open(path)
    assert final.append_message(user("after the crashes"))  # the file still takes appends
    assert SessionStore.open(path).records[-1].value["message"]["content"][0]["text"] == (
        "after the crashes"
    )


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


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

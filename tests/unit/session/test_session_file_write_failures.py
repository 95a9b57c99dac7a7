"""Writes cut short or raced: a full disk, two first writers, a header edited in place, a failed
migration. Nothing acknowledged is lost, nothing is duplicated, no second header, no torn backup.

A full disk is ``RLIMIT_FSIZE`` in a child process: a write past the limit is cut short and the
next one fails with ``EFBIG`` (``SIGXFSZ`` ignored), as a write on a full disk is cut short and
then fails with ``ENOSPC``.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.builders import Clock, assistant, counting_uuids, fresh_store, user
from pi_lsp.session import SessionFileError, SessionStore
from pi_lsp.session.session_file import HeaderChangedError
from tests import deadlines

ROOT = Path(__file__).resolve().parents[3]

PRELUDE = textwrap.dedent(
    """
    import json, os, resource, signal, sys
    from pathlib import Path
    from pi_lsp.session import SessionStore
    sys.path.insert(0, {root!r})
    from pi_lsp.devtools.builders import assistant, user

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    SOFT, HARD = resource.getrlimit(resource.RLIMIT_FSIZE)

    def disk_full(limit):
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, HARD))

    def disk_has_room():
        resource.setrlimit(resource.RLIMIT_FSIZE, (SOFT, HARD))

    def attempt(action):
        try:
            return action()
        except OSError as exc:
            return f"failed: {{exc.strerror}}"
    """
)


def run_child(body: str, *args: str) -> Any:
    """Run ``body`` after :data:`PRELUDE` in a child; returns the JSON it prints last."""
    script = PRELUDE.format(root=str(ROOT)) + textwrap.dedent(body)
    done = deadlines.run_child([sys.executable, "-c", script, *args])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    assert not text or text.endswith("\n"), "the file ends in a torn line"
    return [json.loads(line) for line in text.splitlines()]


def test_a_first_write_cut_short_and_retried_writes_one_header_and_no_duplicates(
    tmp_path: Path,
) -> None:
    outcome = run_child(
        """
        store = SessionStore.create("/p", directory=Path(sys.argv[1]))
        store.append_model_change("openai", "m")  # setup entries wait in memory
        disk_full(250)  # the header fits, the entries do not
        first = attempt(lambda: store.append_message(user("lost to a full disk")))
        disk_has_room()
        retried = store.append_message(user("retried"))
        reply = store.append_message(assistant("answer"))
        print(json.dumps([str(store.path), first, retried, reply]))
        """,
        str(tmp_path),
    )
    path, first, retried, reply = outcome
    assert first.startswith("failed:"), first
    written = lines(Path(path))
    assert [line["type"] for line in written] == ["session", "model_change", "message", "message"]
    assert [e["id"] for e in written[2:]] == [retried, reply]
    texts = [e["message"]["content"][0]["text"] for e in written[2:]]
    assert texts == ["retried", "answer"]  # the refused append is not written later either
    assert SessionStore.open(path).diagnostics == []


def test_an_append_cut_short_by_a_full_disk_leaves_no_torn_line(tmp_path: Path) -> None:
    store = fresh_store("/p", tmp_path, turns=[("q", "a")])
    assert store.path is not None
    before = store.path.read_bytes()
    outcome = run_child(
        """
        store = SessionStore.open(sys.argv[1])
        disk_full(os.path.getsize(sys.argv[1]) + 40)  # part of the line fits
        first = attempt(lambda: store.append_message(user("x" * 500)))
        size_after_failure = os.path.getsize(sys.argv[1])
        disk_has_room()
        again = store.append_message(user("after the disk was freed"))
        print(json.dumps([first, size_after_failure, again]))
        """,
        str(store.path),
    )
    first, size_after_failure, again = outcome
    assert first.startswith("failed:") and size_after_failure == len(before)
    reopened = SessionStore.open(store.path)
    assert reopened.diagnostics == [] and reopened.leaf_id == again
    assert store.path.read_bytes().startswith(before) and len(lines(store.path)) == 4


def test_two_stores_opening_one_empty_file_write_one_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    a = SessionStore.open(path, clock=Clock(), uuids=counting_uuids())
    b = SessionStore.open(path, clock=Clock(2e9), uuids=lambda: "b" * 32)
    mine = a.append_message(user("from A"))
    theirs = b.append_message(user("from B"))
    written = lines(path)
    assert [line["type"] for line in written] == ["session", "message", "message"]
    assert [e["id"] for e in written[1:]] == [mine, theirs]
    assert b.header == a.header == written[0]  # B took over the header A wrote
    assert b.get(mine) is not None  # and indexed A's entry
    a.append_message(assistant("A goes on"))
    assert SessionStore.open(path).entry_count == 3


def test_a_first_write_refuses_a_file_that_became_something_else(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    store = SessionStore.open(path)
    path.write_bytes(b"notes, not a session\n")  # another program wrote there meanwhile
    with pytest.raises(SessionFileError, match="no valid session header"):
        store.append_message(user("q"))
    assert path.read_bytes() == b"notes, not a session\n"


def test_a_header_changed_in_place_stops_every_append(tmp_path: Path) -> None:
    store = fresh_store("/p", tmp_path, turns=[("q", "a")])
    assert store.path is not None
    raw = store.path.read_bytes()
    header_length = raw.index(b"\n")
    with store.path.open("r+b") as handle:  # same inode, same size: only the header differs
        handle.write(b"#" * header_length)
    damaged = store.path.read_bytes()
    for _ in range(2):
        with pytest.raises(HeaderChangedError, match="header was changed by another program"):
            store.append_message(user("more"))
    assert store.path.read_bytes() == damaged  # nothing appended to a file that does not load


V1_HEADER = {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}


def _v1_file(path: Path) -> bytes:
    rows = [V1_HEADER] + [
        {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user(f"q{i} " * 40)}
        for i in range(60)
    ]
    original = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(original)
    return original


@pytest.mark.parametrize("limit", ["half", "exact"])
def test_a_failed_migration_leaves_a_complete_backup_or_none(tmp_path: Path, limit: str) -> None:
    path = tmp_path / "v1.jsonl"
    original = _v1_file(path)
    cap = len(original) // 2 if limit == "half" else len(original)  # exact: the rewrite fails
    first = run_child(
        """
        store = SessionStore.open(sys.argv[1])
        disk_full(int(sys.argv[2]))
        print(json.dumps(attempt(lambda: store.ensure_migrated())))
        """,
        str(path),
        str(cap),
    )
    assert str(first).startswith("failed:"), first
    assert path.read_bytes() == original  # the session file is as it was
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != "v1.jsonl")
    backups = [tmp_path / name for name in leftovers if ".bak" in name]
    assert [b.read_bytes() for b in backups] == ([original] if limit == "exact" else [])
    assert all(".bak" in name for name in leftovers), leftovers  # no temporary file left
    store = SessionStore.open(path)
    store.ensure_migrated()  # room again: the migration completes
    assert SessionStore.open(path).from_version == 3
    for backup in tmp_path.glob("v1.jsonl.v1.bak*"):
        assert backup.read_bytes() == original

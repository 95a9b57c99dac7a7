"""Session lists never freeze or bloat: FIFOs, devices and huge files in the sessions folder.

The memory checks run the listing in a child process under ``RLIMIT_AS`` (the address space a
runaway read would need), so a regression fails the child instead of exhausting the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from pi_lsp.daemon.workspaces import Workspaces
from pi_lsp.session import listing as listing_module
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import session_dir
from tests.deadlines import run_child
from tests.unit.session.test_listing_cli import make_session

ROOT = Path(__file__).resolve().parents[3]
HEADER = (
    b'{"type":"session","version":3,"id":"big","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
)

LIST_IN_A_BOX = textwrap.dedent(
    """
    import json, resource, sys
    limit = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from pathlib import Path
    from pi_lsp.session.listing import SessionLister
    infos = SessionLister().list_dir(Path(sys.argv[1]))
    print(json.dumps([[Path(i.path).name, i.messageCount, len(i.allMessagesText)] for i in infos]))
    """
)


def list_in_a_box(folder: Path, limit: int = 1 << 30) -> list[list[object]]:
    """The listing of ``folder`` as ``[name, messageCount, text length]`` from a child whose
    address space is capped at ``limit`` bytes."""
    done = run_child([sys.executable, "-c", LIST_IN_A_BOX, str(folder), str(limit)], cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    result: list[list[object]] = json.loads(done.stdout)
    return result


def test_a_fifo_in_the_folder_is_skipped_not_waited_on(tmp_path: Path) -> None:
    make_session(tmp_path, 1e9, "real")
    fifo = tmp_path / "trap.jsonl"
    os.mkfifo(fifo)
    found: list[list[str]] = []
    worker = threading.Thread(
        target=lambda: found.append([i.firstMessage for i in SessionLister().list_dir(tmp_path)]),
        daemon=True,
    )
    worker.start()
    worker.join(60)  # a hang detector, not a timing check: the fixed code never waits
    hung = worker.is_alive()
    if hung:  # let the blocked open() return so the thread can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert not hung, "listing blocked on a FIFO"
    assert found == [["real"]]


def test_a_link_to_dev_zero_and_a_2_gb_file_neither_bloat_nor_hide_the_rest(
    tmp_path: Path,
) -> None:
    make_session(tmp_path, 1e9, "real")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    with (tmp_path / "sparse.jsonl").open("wb") as handle:  # 2 GB of NUL bytes, no header
        handle.truncate(2 << 30)
    with (tmp_path / "header-then-2gb.jsonl").open("wb") as handle:  # a header, then 2 GB
        handle.write(HEADER)
        handle.truncate(len(HEADER) + (2 << 30))
    listed = list_in_a_box(tmp_path)
    names = sorted(str(name) for name, _, _ in listed)
    assert len(names) == 2 and names[1] == "header-then-2gb.jsonl", listed
    assert sorted(listed)[1][1:] == [0, 0]  # the 2 GB line is skipped, not buffered


def test_search_text_is_capped_per_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing_module, "TEXT_LIMIT", 20)
    make_session(tmp_path, 1e9, "a" * 15)
    (info,) = SessionLister().list_dir(tmp_path)
    assert info.messageCount == 2
    assert info.allMessagesText == "a" * 15 + " re: a"  # 15 + 5 characters kept
    assert info.firstMessage == "a" * 15


def test_long_lines_are_skipped_and_the_rest_still_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing_module, "MAX_LINE", 1000)
    monkeypatch.setattr(listing_module, "CHUNK", 64)
    store = make_session(tmp_path, 1e9, "short")
    assert store.path is not None
    with store.path.open("ab") as handle:
        handle.write(b'{"type":"message","junk":"' + b"x" * 5000 + b'"}\n')
    store.append_message({"role": "user", "content": "after", "timestamp": 1})
    (info,) = SessionLister().list_dir(tmp_path)
    assert info.messageCount == 3 and info.allMessagesText == "short re: short after"


async def test_the_daemon_lists_in_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    make_session(session_dir(str(tmp_path), agent), 1e9, "listed")
    workspaces = Workspaces(lambda *_: None, agent=agent)
    workspaces.set_folders([(tmp_path.as_uri(), str(tmp_path))])
    release = threading.Event()
    real = workspaces.lister.list_cwd

    def slow_list(*args: object) -> object:
        assert release.wait(60)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(workspaces.lister, "list_cwd", slow_list)
    listing = asyncio.ensure_future(workspaces.list_sessions(None))
    await asyncio.sleep(0)  # the loop keeps running while the list is being read
    assert not listing.done()
    release.set()
    infos = await listing
    assert [i.firstMessage for i in infos] == ["listed"]


def test_opening_or_discovering_a_fifo_never_waits(tmp_path: Path) -> None:
    from pi_lsp.session import SessionFileError, SessionStore
    from pi_lsp.session.branching import most_recent_session

    real = make_session(tmp_path, 1e9, "real")
    fifo = tmp_path / "zz-newest.jsonl"
    os.mkfifo(fifo)
    outcome: list[object] = []

    def attempt() -> None:
        outcome.append(most_recent_session(tmp_path))
        try:
            SessionStore.open(fifo)
        except SessionFileError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(60)  # a hang detector: the fixed code never waits
    hung = worker.is_alive()
    while worker.is_alive():  # unblock a waiting open() so the thread ends
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(1)
    assert not hung, "blocked on a FIFO"
    assert outcome == [real.path, f"{fifo}: is not a regular file, not a session file; not read"]

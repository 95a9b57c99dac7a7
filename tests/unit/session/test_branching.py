"""Branched sessions, forks and continue-recent, against pi's own output in the corpus."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.builders import Clock, assistant, counting_uuids, fresh_store, user
from pi_lsp.session import SessionFileError, SessionStore
from pi_lsp.session.branching import branched_session, continue_recent, fork_from
from tests.conftest import CONFORMANCE_DIR

SESSIONS = CONFORMANCE_DIR / "sessions"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _pi_branched(result: str) -> tuple[list[dict[str, Any]], int]:
    """Entries pi wrote into a branched file before the extra turn the corpus appended."""
    expected = json.loads((SESSIONS / f"{result}.expected.json").read_text())
    entries = lines(SESSIONS / f"{result}.jsonl")[1:]
    return entries, expected["entryCount"]


@pytest.mark.parametrize(
    ("source", "result"),
    [
        ("created-branched-session-source", "created-branched-session-result"),
        ("branched-session-deferred-source", "branched-session-deferred-result"),
    ],
)
def test_branched_session_matches_pi_except_the_d2_relink(
    tmp_path: Path, source: str, result: str
) -> None:
    pi_entries, _ = _pi_branched(result)
    copied = [e for e in pi_entries if e["type"] != "label"]
    src = SessionStore.open(SESSIONS / f"{source}.jsonl")
    path_ids = {r.id for r in src.branch_path()}
    path_copy = [e for e in copied if e["id"] in path_ids]
    leaf = path_copy[-1]["id"]
    new = branched_session(src, leaf, directory=tmp_path, clock=Clock(), uuids=counting_uuids())
    ours = [r.value for r in new.records]
    ours_copy = [e for e in ours if e["type"] != "label"]
    assert [e["id"] for e in ours_copy] == [e["id"] for e in path_copy]
    for mine, theirs in zip(ours_copy, path_copy, strict=True):
        if mine["parentId"] != theirs["parentId"]:
            # pi keeps a link to a label entry it dropped; D2 re-links to the previous entry
            assert theirs["parentId"] not in {e["id"] for e in path_copy}
            assert mine["parentId"] == path_copy[path_copy.index(theirs) - 1]["id"]
            mine = {**mine, "parentId": theirs["parentId"]}
        assert mine == theirs
    known = {e["id"] for e in ours}
    assert all(e["parentId"] is None or e["parentId"] in known for e in ours)
    pi_labels = [(e["targetId"], e.get("label")) for e in pi_entries if e["type"] == "label"]
    our_labels = [(e["targetId"], e.get("label")) for e in ours if e["type"] == "label"]
    assert our_labels == pi_labels[: len(our_labels)] and new.labels == {
        t: lbl for t, lbl in src.labels.items() if t in path_ids
    }
    assert new.header["parentSession"] == str(src.path)
    has_conversation = any(
        e["type"] == "message" and e["message"]["role"] in ("user", "assistant") for e in ours
    )  # pi 1.6.0 writes a branched copy at once when it holds a conversation message
    assert new.path is not None and new.path.exists() == has_conversation


def test_branched_session_without_conversation_is_written_with_the_first_message(
    tmp_path: Path,
) -> None:
    src = fresh_store("/p", tmp_path / "src")
    setup = src.append_model_change("openai", "m")
    src.append_message(user("q"))
    new = branched_session(src, setup, directory=tmp_path, clock=Clock(), uuids=counting_uuids())
    assert new.path is not None and not new.path.exists()
    new.append_message(user("again"))
    types = [line["type"] for line in lines(new.path)]
    assert types == ["session", "model_change", "message"]
    with_user = branched_session(src, src.leaf_id or "", directory=tmp_path / "u")
    assert with_user.path is not None and with_user.path.exists()  # a user message: at once


def test_fork_from_copies_every_entry_under_a_new_header(tmp_path: Path) -> None:
    source = SESSIONS / "labels.jsonl"
    forked = fork_from(source, "/new/cwd", directory=tmp_path, uuids=counting_uuids())
    assert forked.path is not None
    written = lines(forked.path)
    assert written[0]["cwd"] == "/new/cwd" and written[0]["parentSession"] == str(source)
    assert written[0]["version"] == 3
    assert written[1:] == lines(source)[1:]
    pi = lines(SESSIONS / "fork-from-result.jsonl")
    assert list(pi[0]) == list(written[0])  # same header keys as pi's forkFrom


def test_fork_from_records_the_source_path_as_given_through_a_symlink(tmp_path: Path) -> None:
    # pi records parentSession lexically resolved (resolvePath), not the real path
    link = tmp_path / "corpus-link"
    link.symlink_to(SESSIONS, target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    given = link / "sub" / ".." / "labels.jsonl"  # folded lexically, the link kept
    forked = fork_from(given, "/new/cwd", directory=work, uuids=counting_uuids())
    assert forked.header["parentSession"] == str(link / "labels.jsonl")
    assert os.path.realpath(link) != str(link)
    old_cwd = os.getcwd()
    os.chdir(tmp_path)
    try:  # a relative path is made absolute against the working directory
        relative = fork_from("corpus-link/labels.jsonl", "/x", directory=work)
    finally:
        os.chdir(old_cwd)
    assert relative.header["parentSession"] == str(link / "labels.jsonl")


async def test_a_daemon_fork_records_the_path_the_session_was_opened_by(tmp_path: Path) -> None:
    from pi_lsp.daemon.workspaces import Workspaces

    real = tmp_path / "real"
    source = fresh_store("/p", real)
    source.append_message(user("q"))
    answer = source.append_message(assistant("a"))
    assert source.path is not None
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    opened_by = link / source.path.name
    workspaces = Workspaces(lambda *_: None, agent=tmp_path / "agent")
    live = await workspaces.open_session(str(opened_by), None)
    assert live.state()["sessionFile"] == str(opened_by)
    again = await workspaces.open_session(str(source.path), None)  # the same file: same session
    assert again is live
    forked, _ = await workspaces.fork(live.id, answer)
    assert forked.store.header["parentSession"] == str(opened_by)
    await workspaces.close_all()


def test_fork_from_migrates_an_old_file_first(tmp_path: Path) -> None:
    forked = fork_from(SESSIONS / "fixture-large-session.jsonl", "/x", directory=tmp_path)
    assert forked.path is not None
    written = lines(forked.path)
    assert all("id" in e and "parentId" in e for e in written[1:])
    assert forked.entry_count == 1018 and forked.diagnostics == []


def test_fork_from_refuses_missing_or_invalid(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError):
        fork_from(tmp_path / "missing.jsonl", "/x", directory=tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    with pytest.raises(SessionFileError):
        fork_from(bad, "/x", directory=tmp_path)


def test_continue_recent_picks_newest_valid_session(tmp_path: Path) -> None:
    assert not continue_recent("/p", directory=tmp_path).persisted
    older = fresh_store("/p", tmp_path, start=1e9, turns=[("old", "ok")])
    newer = fresh_store("/p", tmp_path, start=2e9, turns=[("new", "ok")])
    assert older.path is not None and newer.path is not None
    (tmp_path / "junk.jsonl").write_text("garbage\n")
    (tmp_path / "notes.txt").write_text("x")
    now = time.time()
    os.utime(older.path, (now, now + 100))  # the newest by mtime wins, not by name
    assert continue_recent("/p", directory=tmp_path).path == older.path

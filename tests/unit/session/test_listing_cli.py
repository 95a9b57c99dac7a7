"""Session lists (pi's metadata, cache) and the ``pi-lsp sessions`` command line."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.devtools.builders import assistant, fresh_store, user
from pi_lsp.session import SessionStore
from pi_lsp.session import listing as listing_module
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import session_dir
from tests.conftest import CONFORMANCE_DIR
from tests.deadlines import run_child

CORPUS = CONFORMANCE_DIR / "sessions"


def make_session(folder: Path, start: float, text: str) -> SessionStore:
    store = fresh_store("/proj", folder, start=start)
    store.append_message(user(text, ts=int(start * 1000)))
    store.append_message(assistant(f"re: {text}", ts=int(start * 1000) + 5))
    return store


def test_list_sorts_newest_first_and_skips_non_sessions(tmp_path: Path) -> None:
    make_session(tmp_path, 1e9, "old")
    make_session(tmp_path, 2e9, "new")
    (tmp_path / "junk.jsonl").write_text("garbage\n")
    (tmp_path / "first-not-header.jsonl").write_text('{"type":"message"}\n')
    infos = SessionLister().list_dir(tmp_path)
    assert [i.firstMessage for i in infos] == ["new", "old"]
    assert infos[0].allMessagesText == "new re: new"
    assert infos[0].messageCount == 2


def test_an_empty_name_clears_the_listed_name(tmp_path: Path) -> None:
    store = make_session(tmp_path, 1e9, "hello")
    store.append_session_info("first\nname")
    lister = SessionLister()
    assert [i.name for i in lister.list_dir(tmp_path)] == ["first name"]
    store.append_session_info("   ")  # pi 1.6.0: the latest session_info wins, empty clears
    assert [i.name for i in lister.list_dir(tmp_path)] == [None]
    assert store.session_name is None


def test_list_cache_rereads_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_session(tmp_path, 1e9, "first")
    other = make_session(tmp_path, 2e9, "second")
    lister = SessionLister()
    assert len(lister.list_dir(tmp_path)) == 2
    fed: list[int] = []
    real_feed = listing_module._feed
    monkeypatch.setattr(
        listing_module,
        "_feed",
        lambda scan, data: (fed.append(len(data)), real_feed(scan, data))[1],
    )
    lister.list_dir(tmp_path)
    assert fed == []  # nothing changed: nothing parsed
    store.append_message(user("third", ts=int(3e12)))
    infos = lister.list_dir(tmp_path)
    assert infos[0].firstMessage == "first" and infos[0].messageCount == 3
    assert infos[0].allMessagesText == "first re: first third"
    assert store.path is not None and 0 < fed[0] < store.path.stat().st_size  # only the new line
    assert other.path is not None
    replacement = other.path.read_text().replace("second", "SECOND")
    other.path.unlink()
    other.path.write_text(replacement)
    fed.clear()
    infos = lister.list_dir(tmp_path)
    assert {i.firstMessage for i in infos} == {"first", "SECOND"}
    assert fed == [other.path.stat().st_size]  # replaced file: read again from the start


def test_list_all_covers_every_project(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    make_session(session_dir("/a", agent), 1e9, "in a")
    make_session(session_dir("/b", agent), 2e9, "in b")
    assert [i.firstMessage for i in SessionLister().list_all(agent)] == ["in b", "in a"]
    assert [i.firstMessage for i in SessionLister().list_cwd("/a", agent)] == ["in a"]


def test_cli_list_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    folder = session_dir("/work/x", agent)
    folder.mkdir(parents=True)
    shutil.copy(CORPUS / "labels.jsonl", folder / "labels.jsonl")
    assert main(["sessions", "list", "--cwd", "/work/x", "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    expected = json.loads((CORPUS / "labels.expected.json").read_text())["listInfo"]
    assert {k: info[k] for k in expected} == expected
    assert main(["sessions", "list", "--all"]) == 0
    assert "labels.jsonl" in capsys.readouterr().out


def test_cli_tree_and_context_json_match_the_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads((CORPUS / "branching-many.expected.json").read_text())
    assert main(["sessions", "tree", str(CORPUS / "branching-many.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected["tree"]
    assert main(["sessions", "context", str(CORPUS / "branching-many.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected["context"]
    probe = expected["contextAt"][0]
    args = [
        "sessions",
        "context",
        str(CORPUS / "branching-many.jsonl"),
        "--leaf",
        probe["targetId"],
        "--json",
    ]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == probe["context"]


def test_cli_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "tree", str(CORPUS / "labels.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "[start]" in out and "<- leaf" in out
    assert main(["sessions", "context", str(CORPUS / "compaction-single.jsonl")]) == 0
    assert capsys.readouterr().out.startswith("[compactionSummary]")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sessions", "tree", "/no/such/file.jsonl"], "no such session file"),
        (
            ["sessions", "context", str(CORPUS / "labels.jsonl"), "--leaf", "zzzz"],
            "Entry zzzz not found",
        ),
    ],
)
def test_cli_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_refused_file_is_left_untouched(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"type":"message","id":"a"}\nrest\n')
    result = run_child([sys.executable, "-m", "pi_lsp", "sessions", "context", str(bad)])
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        "first valid line is not a session header; file left untouched"
    )
    assert result.stderr.count("\n") == 1
    assert bad.read_bytes() == b'{"type":"message","id":"a"}\nrest\n'


def test_sessions_commands_do_not_import_litellm_or_pygls(tmp_path: Path) -> None:
    code = (
        "import sys; from pi_lsp.cli import main; "
        f"main(['sessions', 'tree', {str(CORPUS / 'labels.jsonl')!r}, '--json']); "
        "bad = [m for m in ('litellm', 'pygls', 'lsprotocol') if m in sys.modules]; "
        "print(bad, file=sys.stderr); sys.exit(1 if bad else 0)"
    )
    result = run_child([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr

"""``pi-lsp compact plan``: corpus field names, nothing-to-compact, one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_lsp.cli import main
from tests.conftest import CONFORMANCE_DIR

SESSIONS = CONFORMANCE_DIR / "sessions"
EXPECTED = CONFORMANCE_DIR / "compaction"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["compact", "plan", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_plan_matches_the_corpus_with_the_d2_prefix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys,
        str(SESSIONS / "compaction-multiple.jsonl"),
        "--estimator",
        "chars4",
        "--keep-recent",
        "200",
        "--json",
    )
    assert status == 0
    plan = json.loads(out)
    expected = json.loads((EXPECTED / "compaction-multiple.compaction.json").read_text())
    pi = expected["preparations"][0]["result"]
    assert expected["preparations"][0]["keepRecentTokens"] == 200
    for key in (
        "firstKeptEntryId",
        "isSplitTurn",
        "tokensBefore",
        "previousSummary",
        "settings",
        "turnPrefixMessages",
    ):
        assert plan[key] == pi[key], key
    d2 = plan["previousKeptCount"]
    assert d2 > 0  # what the previous compaction kept comes first
    assert plan["messagesToSummarize"][d2:] == pi["messagesToSummarize"]
    assert set(plan["fileLists"]) == {"readFiles", "modifiedFiles"}


def test_text_plan(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(SESSIONS / "fixture-large-session.jsonl"))
    assert status == 0
    assert out.startswith("first kept entry   ")
    assert "tokens before      " in out and "(tiktoken:cl100k_base)" in out  # the default: D4
    assert "split turn from index" in out


def test_plan_at_another_leaf(capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads((EXPECTED / "compaction-single.compaction.json").read_text())
    entry = expected["atCompactionEntries"][0]
    status, out, _ = run(
        capsys,
        str(SESSIONS / "compaction-single.jsonl"),
        "--leaf",
        entry["pathEndId"],
        "--keep-recent",
        "2000",
        "--estimator",
        "chars4",
        "--json",
    )
    assert status == 0
    assert json.loads(out)["firstKeptEntryId"] == entry["recorded"]["firstKeptEntryId"]


def test_nothing_to_compact(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(SESSIONS / "linear-chat.jsonl"))
    assert (status, out) == (
        0,
        "nothing to compact: session too small: all of it fits in keepRecentTokens=20000\n",
    )
    status, out, _ = run(capsys, str(SESSIONS / "compaction-at-leaf.jsonl"), "--json")
    assert status == 0
    assert json.loads(out) == {
        "nothingToCompact": True,
        "reason": "already compacted: the leaf is a compaction entry",
    }


def test_reading_never_modifies_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "old.jsonl"
    shutil.copyfile(
        SESSIONS / "fixture-before-compaction.jsonl", copy
    )  # a v1 file: migrated in memory
    before = copy.read_bytes()
    status, _, _ = run(capsys, str(copy), "--estimator", "chars4")
    assert status == 0 and copy.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.jsonl"]


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(tmp_path / "missing.jsonl"))
    assert (status, out) == (1, "") and err.count("\n") == 1 and "no such session file" in err
    status, _, err = run(capsys, str(SESSIONS / "linear-chat.jsonl"), "--leaf", "deadbeef")
    assert (
        status == 1
        and err == f"pi-lsp: {SESSIONS / 'linear-chat.jsonl'}: entry deadbeef not found\n"
    )
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    status, _, err = run(capsys, str(garbage))
    assert status == 1 and err.startswith("pi-lsp: ") and err.count("\n") == 1


def test_bad_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["compact", "plan", "x.jsonl", "--keep-recent", "-5"])
    assert exit_info.value.code == 2
    assert "must not be negative" in capsys.readouterr().err

"""A session file full of garbage keeps a bounded list of diagnostics (issue 9, item 6).

A 9 MB file of garbage lines used to keep one diagnostic per line (730 MB in the daemon); now
the first :data:`MAX_DIAGNOSTICS` are kept and one summary counts the rest, with their lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from pi_lsp.devtools.builders import session_header
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import MAX_DIAGNOSTICS, Diagnostic, DiagnosticList
from pi_lsp.session.reader import parse_appended

HEADER = session_header("s1", "/w")
ENTRY = {
    "type": "message",
    "id": "e1",
    "parentId": None,
    "timestamp": "2026-01-01T00:00:01.000Z",
    "message": {"role": "user", "content": "hi", "timestamp": 1},
}


def _garbage_file(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "garbage.jsonl"
    body = b"".join(b"not json %d\n" % n for n in range(lines))
    path.write_bytes(
        json.dumps(HEADER).encode()
        + b"\n"
        + body
        + json.dumps(ENTRY).encode()
        + b"\n"
        + b"{broken\n"
    )
    return path


def test_a_file_of_garbage_lines_keeps_a_bounded_list_with_a_summary(tmp_path: Path) -> None:
    lines = 20_000
    store = SessionStore.open(_garbage_file(tmp_path, lines))
    assert store.entry_count == 1  # the one good entry survives among the garbage
    diagnostics = store.diagnostics
    assert len(diagnostics) == MAX_DIAGNOSTICS + 1
    assert [d.line for d in diagnostics[:3]] == [2, 3, 4]
    summary = diagnostics[-1]
    dropped = lines + 1 - MAX_DIAGNOSTICS  # the garbage lines and "{broken", minus those kept
    assert summary.line == 0
    assert summary.reason == (
        f"{dropped} more problem(s) not listed, lines {MAX_DIAGNOSTICS + 2}–{lines + 3}"
    )


def test_merging_bounded_lists_adds_up_their_counts() -> None:
    first = DiagnosticList("f", limit=2)
    for line in range(1, 6):
        first.append(Diagnostic("f", line, "bad"))
    assert [d.line for d in first] == [1, 2, 0] and first.dropped == 3
    merged = DiagnosticList("f", limit=3)
    merged.append(Diagnostic("f", 9, "other"))
    merged.extend(first)
    assert [d.line for d in merged] == [9, 1, 2, 0]
    assert merged[-1].reason == "3 more problem(s) not listed, lines 3–5"
    merged.append(Diagnostic("f", 40, "late"))
    assert merged[-1].reason == "4 more problem(s) not listed, lines 3–40"


def test_lines_appended_by_another_process_are_numbered_in_the_whole_file(tmp_path: Path) -> None:
    data = b"".join(b"junk\n" for _ in range(MAX_DIAGNOSTICS + 5))
    _, diagnostics = parse_appended(data, tmp_path / "f.jsonl", first_line=50)
    assert diagnostics[0].line == 50
    assert (
        diagnostics[-1].reason
        == f"5 more problem(s) not listed, lines {50 + MAX_DIAGNOSTICS}–{54 + MAX_DIAGNOSTICS}"
    )

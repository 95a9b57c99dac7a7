"""The reader's line loop: CRLF files, blank lines and line numbers, on open and on catch-up."""

from __future__ import annotations

import json
from pathlib import Path

from pi_lsp.devtools.builders import session_header
from pi_lsp.session.reader import parse_appended, parse_session_bytes

HEADER = json.dumps(session_header("s1", "/w")).encode()


def entry(entry_id: str, parent: str | None) -> bytes:
    value = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hi", "timestamp": 1},
    }
    return json.dumps(value).encode()


LINES = [HEADER, entry("a", None), b"", b"  \t", entry("b", "a"), b"[1]", entry("c", "b")]


def test_a_crlf_file_reads_as_the_same_file_with_lf() -> None:
    lf = parse_session_bytes(b"\n".join(LINES) + b"\n", Path("t.jsonl"))
    crlf = parse_session_bytes(b"\r\n".join(LINES) + b"\r\n", Path("t.jsonl"))
    assert [(r.id, r.raw, r.line) for r in crlf.records] == [
        (r.id, r.raw, r.line) for r in lf.records
    ]
    assert [r.raw for r in lf.records] == [LINES[1], LINES[4], LINES[6]]
    assert [str(d) for d in crlf.diagnostics] == [str(d) for d in lf.diagnostics]


def test_blank_lines_are_skipped_silently_and_counted_in_line_numbers() -> None:
    loaded = parse_session_bytes(b"\n".join(LINES) + b"\n", Path("t.jsonl"))
    assert [(r.id, r.line) for r in loaded.records] == [("a", 2), ("b", 5), ("c", 7)]
    assert [str(d) for d in loaded.diagnostics] == ["t.jsonl:6: malformed JSON: not a JSON object"]


def test_appended_crlf_lines_lose_their_cr_and_keep_their_numbers() -> None:
    data = b"\r\n".join([entry("d", "c"), b"", entry("e", "d")]) + b"\r\n"
    records, problems = parse_appended(data, Path("t.jsonl"), first_line=10)
    assert [(r.id, r.raw, r.line) for r in records] == [
        ("d", entry("d", "c"), 10),
        ("e", entry("e", "d"), 12),
    ]
    assert problems == []

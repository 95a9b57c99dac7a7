"""Writing exactly as pi does, reading back, and the D2 rules where pi loses data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.devtools.builders import (
    Clock,
    assistant,
    call,
    counting_uuids,
    fresh_store,
    message_entry,
    session_header,
    tool_result,
    user,
)
from pi_lsp.session import SessionFileError, SessionStore
from pi_lsp.session.entries import session_line
from pi_lsp.session.paths import agent_dir, encode_cwd, session_dir

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
KEY_ORDER = {
    "message": ["type", "id", "parentId", "timestamp", "message"],
    "thinking_level_change": ["type", "id", "parentId", "timestamp", "thinkingLevel"],
    "model_change": ["type", "id", "parentId", "timestamp", "provider", "modelId"],
    "compaction": [
        "type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore",
        "details", "fromHook",
    ],
    "branch_summary": ["type", "id", "parentId", "timestamp", "fromId", "summary", "details", "fromHook"],
    "custom": ["type", "customType", "data", "id", "parentId", "timestamp"],
    "custom_message": ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
    "label": ["type", "id", "parentId", "timestamp", "targetId", "label"],
    "session_info": ["type", "id", "parentId", "timestamp", "name"],
}  # fmt: skip


def lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def full_session(s: SessionStore) -> dict[str, str]:
    """Append one entry of every type; returns their ids by type."""
    ids = {"thinking_level_change": s.append_thinking_level_change("medium")}
    ids["model_change"] = s.append_model_change("anthropic", "claude-sonnet-4-5")
    first = s.append_message(user("read a.py"))
    s.append_message(assistant("", calls=[call("read", path="a.py")], stop="toolUse"))
    s.append_message(tool_result("print('é😀')", "c1"))
    ids["message"] = s.append_message(assistant("done"))
    ids["compaction"] = s.append_compaction(
        "S", first, 99, {"readFiles": ["a.py"], "modifiedFiles": []}, False
    )
    ids["custom"] = s.append_custom_entry("ext", {"x": 1})
    ids["custom_message"] = s.append_custom_message("note", "hello", True, {"d": 1})
    ids["label"] = s.append_label(first, "start")
    ids["session_info"] = s.append_session_info("My session")
    ids["branch_summary"] = s.branch_with_summary(
        first, "B", {"readFiles": [], "modifiedFiles": []}, False
    )
    return ids


def test_default_location_is_pis(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert agent_dir() == tmp_path / "agent"
    assert session_dir("/Users/me/proj") == tmp_path / "agent" / "sessions" / "--Users-me-proj--"
    assert encode_cwd("C:\\Users\\me\\proj") == "--C--Users-me-proj--"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/x")
    assert agent_dir() == Path.home() / "x"
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert agent_dir() == Path.home() / ".pi" / "agent"
    s = SessionStore.create("/proj", clock=Clock(), uuids=counting_uuids())
    assert s.path is not None
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl",
        s.path.name,
    )  # a UUIDv7 session id, as pi 1.6.0 writes


def test_file_is_created_with_the_first_user_message(tmp_path: Path) -> None:
    # pi 1.6.0 writes at the first user or assistant message, so an acknowledged prompt
    # survives a crash before the reply (issue 9 item 10).
    s = fresh_store("/proj", tmp_path)
    s.append_thinking_level_change("off")
    assert s.path is not None and not s.path.exists()  # setup entries alone leave no file
    s.append_message(user("hi"))
    written = lines(s.path)
    assert [line["type"] for line in written] == ["session", "thinking_level_change", "message"]
    s.append_message(assistant("hello"))
    s.append_message(user("more"))
    assert [line["type"] for line in lines(s.path)].count("session") == 1
    assert len(lines(s.path)) == 5


def test_written_lines_have_pis_shape(tmp_path: Path) -> None:
    s = fresh_store("/proj", tmp_path)
    full_session(s)
    assert s.path is not None
    written = lines(s.path)
    header = written[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and ISO.match(header["timestamp"])
    assert sum(1 for line in written if line["type"] == "session") == 1
    seen: set[str] = set()
    for line in written[1:]:
        assert list(line) == KEY_ORDER[line["type"]], line["type"]
        assert re.fullmatch(r"[0-9a-f]{8}", line["id"]) and line["id"] not in seen
        seen.add(line["id"])
        assert ISO.match(line["timestamp"])
        session_line().validate_python(line)
    raw = s.path.read_bytes()
    assert "é😀".encode() in raw  # non-ASCII is written raw, as JSON.stringify does
    assert b", " not in raw.split(b"\n")[0]


def test_round_trip_gives_the_same_tree_and_context(tmp_path: Path) -> None:
    s = fresh_store("/proj", tmp_path)
    full_session(s)
    assert s.path is not None
    reopened = SessionStore.open(s.path)
    assert reopened.tree().to_json() == s.tree().to_json()
    assert reopened.context().to_json() == s.context().to_json()
    assert reopened.labels == s.labels and reopened.session_name == "My session"
    assert reopened.leaf_id == s.leaf_id
    assert reopened.diagnostics == []


def test_unicode_line_separators_stay_inside_their_line(tmp_path: Path) -> None:
    # JSON (and pi's JSON.stringify) leaves U+0085, U+2028 and U+2029 unescaped; a reader that
    # split lines at them (Python's str.splitlines) would see torn lines. Lines end at \n only.
    text = "a\x85b\u2028c\u2029d\x1ce\x0bf\x0cg\rh\ni"
    s = fresh_store("/proj", tmp_path, turns=[(text, text)])
    assert s.path is not None
    raw = s.path.read_text(encoding="utf-8")
    assert raw.count("\n") == 3 and "\u2028" in raw and "\x85" in raw
    reopened = SessionStore.open(s.path)
    assert reopened.diagnostics == []
    assert reopened.context().to_json() == s.context().to_json()
    assert reopened.context().to_json()["messages"][0]["content"][0]["text"] == text


def test_foreign_fields_and_entry_types_survive(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    header = session_header("u", timestamp="2025-01-01T00:00:00.000Z")
    future = {
        "type": "future_kind",
        "id": "aaaaaaaa",
        "parentId": None,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "x": [1],
    }
    message = {"type": "message", "id": "bbbbbbbb", "parentId": "aaaaaaaa", "timestamp": "2025-01-01T00:00:02.000Z",
               "message": {**user("q"), "extra": {"keep": True}}, "meta": "m"}  # fmt: skip
    path.write_text("".join(json.dumps(o) + "\n" for o in (header, future, message)))
    s = SessionStore.open(path)
    assert s.require("aaaaaaaa").value == future
    assert s.context().messages[0]["extra"] == {"keep": True}
    s.append_message(assistant())
    copy = SessionStore.open(path)
    assert copy.require("bbbbbbbb").value == message
    assert copy.require("aaaaaaaa").value == future


def test_headerless_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    content = b'garbage\n{"type":"message","id":"a","parentId":null}\n'
    path.write_bytes(content)
    with pytest.raises(
        SessionFileError, match=r"bad.jsonl:2: first valid line is not a session header"
    ):
        SessionStore.open(path)
    path.write_bytes(b"not json at all\n")
    with pytest.raises(SessionFileError, match="no valid session header"):
        SessionStore.open(path)
    assert path.read_bytes() == b"not json at all\n"


def test_empty_file_becomes_a_session_at_that_path(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    s = SessionStore.open(path, clock=Clock(), uuids=counting_uuids())
    s.append_message(user("q"))
    s.append_message(assistant())
    written = lines(path)
    assert [line["type"] for line in written] == ["session", "message", "message"]


def test_torn_last_line_is_reported_and_the_next_append_starts_fresh(tmp_path: Path) -> None:
    s = fresh_store("/proj", tmp_path, turns=[("q", "ok")])
    assert s.path is not None
    with s.path.open("ab") as handle:
        handle.write(b'{"type":"message","id":"dead')
    reopened = SessionStore.open(s.path, clock=Clock(2e9), uuids=counting_uuids())
    assert [d.reason.split(":")[0] for d in reopened.diagnostics] == [
        "incomplete last line (torn write), skipped"
    ]
    assert reopened.diagnostics[0].line == 4
    new_id = reopened.append_message(user("after crash"))
    text = s.path.read_text()
    assert text.endswith("\n") and '"id":"dead\n{' in text
    again = SessionStore.open(s.path)
    assert again.leaf_id == new_id and again.entry_count == 3


def test_never_writes_a_second_header(tmp_path: Path) -> None:
    path = tmp_path / "header-only.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
    )
    s = SessionStore.open(path, clock=Clock(), uuids=counting_uuids())
    s.append_message(user("q"))  # pi defers this and later re-writes the header (spec 1.5)
    s.append_message(assistant())
    types = [line["type"] for line in lines(path)]
    assert types == ["session", "message", "message"]


def test_duplicate_header_and_ids_are_tolerated_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    header = (
        '{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
    )
    first = json.dumps(message_entry("aaaaaaaa", None, user("one"), "2025-01-01T00:00:01.000Z"))
    second = first.replace('"one"', '"two"')
    path.write_text(header + header + first + "\n" + second + "\n")
    s = SessionStore.open(path)
    reasons = [d.reason for d in s.diagnostics]
    assert "duplicate session header ignored" in reasons
    assert any(r.startswith("duplicate id aaaaaaaa") for r in reasons)
    assert s.entry_count == 2
    assert s.context().messages[0]["content"][0]["text"] == "two"  # last occurrence wins


def test_orphans_self_parents_and_cycles_load(tmp_path: Path) -> None:
    path = tmp_path / "links.jsonl"
    header = session_header("x", timestamp="2025-01-01T00:00:00.000Z")

    def entry(entry_id: str, parent: str | None) -> dict[str, Any]:
        return message_entry(entry_id, parent, user(entry_id), "2025-01-01T00:00:01.000Z")

    rows = [header, entry("aaaaaaaa", "missing1"), entry("bbbbbbbb", "bbbbbbbb"),
            entry("cccccccc", "dddddddd"), entry("dddddddd", "cccccccc")]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = SessionStore.open(path)
    reasons = " | ".join(d.reason for d in s.diagnostics)
    assert "orphan entry aaaaaaaa" in reasons and "bbbbbbbb is its own parent" in reasons
    assert set(s.tree().roots) == {"aaaaaaaa", "bbbbbbbb"}
    assert [r.id for r in s.branch_path()] == ["cccccccc", "dddddddd"]  # cycle walk ends
    assert len(s.context().messages) == 2


def test_migration_happens_in_memory_until_the_first_write(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    v1 = [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"},
        {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user("q")},
        {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z", "message": assistant()},
        {"type": "compaction", "timestamp": "2025-01-01T00:00:03.000Z", "summary": "S",
         "firstKeptEntryIndex": 2, "tokensBefore": 5},
    ]  # fmt: skip
    original = "".join(json.dumps(r) + "\n" for r in v1)
    path.write_text(original)
    s = SessionStore.open(path, clock=Clock(), uuids=counting_uuids())
    assert path.read_text() == original
    records = s.records
    assert [r.parent_id for r in records] == [None, records[0].id, records[1].id]
    assert records[2].value["firstKeptEntryId"] == records[1].id
    assert "firstKeptEntryIndex" not in records[2].value
    s.append_message(user("new"))
    assert (tmp_path / "v1.jsonl.v1.bak").read_text() == original
    written = lines(path)
    assert written[0]["version"] == 3 and len(written) == 5
    assert SessionStore.open(path).from_version == 3

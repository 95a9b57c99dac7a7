"""Property tests: random damage to valid session files never breaks the reader (D2)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.session import SessionFileError, SessionStore
from pi_lsp.session.reader import parse_session_bytes
from tests.conftest import CONFORMANCE_DIR

SOURCES = [
    (CONFORMANCE_DIR / "sessions" / name).read_bytes()
    for name in (
        "random-walk-a.jsonl",
        "labels.jsonl",
        "images.jsonl",
        "fixture-large-session.jsonl",
    )
]

damage = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 10**9), st.binary(min_size=1, max_size=40)),
    st.tuples(st.just("delete"), st.integers(0, 10**9), st.integers(1, 400)),
    st.tuples(st.just("flip"), st.integers(0, 10**9), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 10**9), st.just(0)),
)


def corrupt(data: bytes, edits: list[tuple[str, int, object]]) -> tuple[bytes, int]:
    """Apply edits; returns the damaged bytes and the offset of the earliest damage."""
    first = len(data)
    for kind, position, arg in edits:
        at = position % (len(data) + 1)
        first = min(first, at)
        if kind == "insert":
            assert isinstance(arg, bytes)
            data = data[:at] + arg + data[at:]
        elif kind == "delete":
            assert isinstance(arg, int)
            data = data[:at] + data[at + arg :]
        elif kind == "flip" and at < len(data):
            assert isinstance(arg, int)
            data = data[:at] + bytes([data[at] ^ arg]) + data[at + 1 :]
        elif kind == "truncate":
            data = data[:at]
    return data, first


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(source=st.sampled_from(range(len(SOURCES))), edits=st.lists(damage, min_size=1, max_size=4))
def test_damage_never_raises_loses_earlier_lines_or_modifies_the_file(
    tmp_path: Path, source: int, edits: list[tuple[str, int, object]]
) -> None:
    original = SOURCES[source]
    data, first_damage = corrupt(original, edits)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(data)
    first_line_end = original.index(b"\n") + 1
    try:
        store = SessionStore.open(path)
    except SessionFileError:
        # only a damaged header line may make a file unusable
        assert first_damage < first_line_end
        assert path.read_bytes() == data
        return
    assert path.read_bytes() == data
    intact = original[:first_damage]
    intact_lines = intact[: intact.rfind(b"\n") + 1].split(b"\n")[1:-1]
    loaded = {(r.id, r.raw) for r in store.records}
    if store.from_version == 3:
        for line in intact_lines:
            entry = json.loads(line)
            assert (entry["id"], line) in loaded
    else:  # v1 files get fresh ids on migration: compare the entries without them
        values = [
            {k: v for k, v in r.value.items() if k not in ("id", "parentId")} for r in store.records
        ]
        for index, line in enumerate(intact_lines):
            entry = json.loads(line)
            entry.pop("firstKeptEntryIndex", None)
            assert {k: v for k, v in values[index].items() if k != "firstKeptEntryId"} == entry
    store.tree()
    store.context()
    for record in store.records[:50]:
        store.context(record.id)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_either_load_or_are_refused_cleanly(data: bytes) -> None:
    try:
        loaded = parse_session_bytes(data, Path("x.jsonl"))
    except SessionFileError as exc:
        assert exc.path == "x.jsonl"
        return
    assert loaded.header is None or loaded.header["type"] == "session"

"""SessionIndex.add_all (the open's bulk path) indexes exactly as one add per record does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.session.jsonl import Record
from pi_lsp.session.reader import parse_session_bytes
from pi_lsp.session.tree import SessionIndex

IDS = [f"{n:08x}" for n in range(12)]
"""A small pool, so duplicate ids, orphans (ids never written) and self-parents occur."""

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"}

entry = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "message",
                "message",
                "model_change",
                "thinking_level_change",
                "compaction",
                "label",
                "session_info",
                "custom",
            ]
        ),
        "id": st.sampled_from(IDS),
        "parentId": st.one_of(st.none(), st.sampled_from(IDS), st.just("missing1")),
        "role": st.sampled_from(["user", "assistant", "toolResult", "system", None]),
        "target": st.sampled_from(IDS),
        "text": st.sampled_from(["", "a name", "  "]),
    }
)


def line(spec: dict[str, Any]) -> bytes:
    """The JSONL line of one drawn entry."""
    value: dict[str, Any] = {
        "type": spec["type"],
        "id": spec["id"],
        "parentId": spec["parentId"],
        "timestamp": "2026-01-01T00:00:01.000Z",
    }
    if spec["type"] == "message":
        value["message"] = {"content": "hi"} | ({"role": spec["role"]} if spec["role"] else {})
    elif spec["type"] == "label":
        value |= {"targetId": spec["target"], "label": spec["text"]}
    elif spec["type"] == "session_info":
        value["name"] = spec["text"]
    return json.dumps(value).encode()


def read(data: bytes) -> list[Record]:
    return parse_session_bytes(data, Path("t.jsonl")).records


def state(index: SessionIndex) -> tuple[object, ...]:
    """Everything an index holds, by line number (the records themselves differ per read)."""
    return (
        [(r.line, r.id, r.parent_id, r.type, r.role, r.settings) for r in index.records],
        {entry_id: record.line for entry_id, record in index.by_id.items()},
        index.labels,
        index.name,
        index.has_conversation,
        index.settings_reliable,
        [str(d) for d in index.diagnostics],
    )


@settings(max_examples=300, deadline=None)
@given(specs=st.lists(entry, max_size=30), split=st.integers(0, 30))
def test_add_all_matches_one_add_per_record(specs: list[dict[str, Any]], split: int) -> None:
    data = b"\n".join([json.dumps(HEADER).encode(), *map(line, specs)]) + b"\n"
    bulk = SessionIndex("t.jsonl")
    records = read(data)
    bulk.add_all(records[:split])  # in two calls: add_all also follows earlier records
    bulk.add_all(records[split:])
    single = SessionIndex("t.jsonl")
    records = read(data)
    for part in (records[:split], records[split:]):
        for record in part:
            single.add(record)
        single.diagnostics.extend(single.link_problems(part))
    assert state(bulk) == state(single)


def test_add_all_shares_the_parent_id_string_and_inherits_the_model() -> None:
    lines = [
        {"type": "message", "id": "a", "parentId": None, "message": {"role": "user"}},
        {"type": "message", "id": "b", "parentId": "a", "message": {"role": "assistant"}},
        {"type": "message", "id": "c", "parentId": "b", "message": {"role": "toolResult"}},
    ]
    data = b"\n".join(json.dumps(v).encode() for v in [HEADER, *lines]) + b"\n"
    index = SessionIndex("t.jsonl")
    index.add_all(read(data))
    a, b, c = index.records
    assert c.parent_id is b.id and b.parent_id is a.id
    assert [r.settings for r in index.records] == [(None, None, None), *[(None, "b", None)] * 2]
    assert index.has_conversation

"""The incremental context builder agrees with pi's definition (``build_context`` over the path).

Hypothesis grows random trees (compactions keeping any entry, or none, or a missing one; context
edits; system messages; settings changes) and, between appends, asks for the context at random
entries, so the builder's spine is extended, truncated, replaced and grown upwards in every order.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.session.context import ContextBuilder, build_context
from pi_lsp.session.jsonl import JsonObject, Record, dumps
from pi_lsp.session.tree import SessionIndex, path_to_root

KINDS = ("user", "assistant", "system", "compaction", "edit", "omit", "thinking", "model", "label")

step = st.tuples(
    st.sampled_from(KINDS),
    st.integers(min_value=0, max_value=10**6),  # which parent
    st.integers(min_value=0, max_value=10**6),  # which kept / edited entry
    st.booleans(),  # query the context after this append
    st.integers(min_value=0, max_value=10**6),  # where to query
)


def _entry(kind: str, entry_id: str, parent: str | None, other: str) -> JsonObject:
    base: JsonObject = {"id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z"}
    if kind in ("user", "assistant", "system"):
        message: JsonObject = {"role": kind, "content": [{"type": "text", "text": entry_id}]}
        if kind == "assistant":
            message |= {"provider": "p", "model": f"m{entry_id}"}
        return {**base, "type": "message", "message": message}
    if kind == "compaction":
        return {**base, "type": "compaction", "summary": entry_id, "firstKeptEntryId": other}
    if kind in ("edit", "omit"):
        replacement = None if kind == "omit" else {"content": f"edited {entry_id}"}
        return {**base, "type": "context_edit", "targetId": other, "replacement": replacement}
    if kind == "thinking":
        return {**base, "type": "thinking_level_change", "thinkingLevel": entry_id}
    if kind == "model":
        return {**base, "type": "model_change", "provider": "p", "modelId": entry_id}
    return {**base, "type": "label", "targetId": other, "label": entry_id}


def _check(index: SessionIndex, builder: ContextBuilder, leaf_id: str) -> None:
    fast = builder.build(leaf_id)
    slow = build_context(path_to_root(index.by_id, leaf_id))
    assert fast.to_json() == slow.to_json()
    assert fast.entry_ids == slow.entry_ids


@settings(max_examples=300, deadline=None)
@given(st.lists(step, min_size=1, max_size=80))
def test_every_context_equals_the_full_walk(steps: list[tuple[str, int, int, bool, int]]) -> None:
    index = SessionIndex("<test>")
    builder = ContextBuilder(index.by_id, lambda: index.settings_reliable)
    ids: list[str] = []
    for number, (kind, parent_pick, other_pick, query, where) in enumerate(steps):
        entry_id = f"e{number}"
        # mostly continue the newest entry, sometimes branch from an older one or start a root
        parent = None if not ids or parent_pick % 11 == 0 else ids[-1 - parent_pick % 3 % len(ids)]
        if ids and parent_pick % 5 == 0:
            parent = ids[parent_pick % len(ids)]
        other = ids[other_pick % len(ids)] if ids and other_pick % 7 else "missing"
        if kind == "compaction" and other_pick % 13 == 0:
            other = entry_id  # keeps nothing
        value = _entry(kind, entry_id, parent, other)
        index.add(Record.from_value(value, dumps(value)))
        ids.append(entry_id)
        if query:
            _check(index, builder, ids[where % len(ids)])
            _check(index, builder, entry_id)
    for entry_id in ids:
        _check(index, builder, entry_id)


def test_a_duplicate_id_makes_contexts_walk_the_path() -> None:
    index = SessionIndex("<test>")
    builder = ContextBuilder(index.by_id, lambda: index.settings_reliable)
    for value in (
        _entry("user", "a", None, ""),
        _entry("assistant", "b", "a", ""),
        _entry("user", "a", "b", ""),  # replaces "a" in the index: a cycle a -> b -> a
    ):
        index.add(Record.from_value(value, dumps(value)))
    assert not index.settings_reliable
    _check(index, builder, "b")
    _check(index, builder, "a")

"""The daemon's incremental tree view agrees with the store's tree after every kind of change."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.daemon.views import TreeView
from pi_lsp.devtools.builders import assistant, fresh_store, user
from pi_lsp.session import SessionStore
from tests.conftest import CONFORMANCE_DIR


def check(view: TreeView, store: SessionStore) -> dict[str, Any]:
    rendered = json.loads(view.render())
    expected = store.tree().to_json()
    nodes = {n["id"]: n for n in rendered["nodes"]}
    assert rendered["roots"] == expected["roots"]
    assert rendered["leafId"] == store.leaf_id
    assert set(nodes) == {n["id"] for n in expected["nodes"]}
    path = {r.id for r in store.branch_path()}
    for node in expected["nodes"]:
        mine = nodes[node["id"]]
        assert (mine["parentId"], mine["type"], mine["label"]) == (
            node["parentId"],
            node["type"],
            node["label"],
        )
        assert mine["children"] == node["children"], node["id"]
        assert mine["onActivePath"] == (node["id"] in path)
    order = [r.id for r in store.records if store.get(r.id) is r]
    assert [n["id"] for n in rendered["nodes"]] == order  # file order
    return rendered


@pytest.mark.parametrize(
    "name", ["random-walk-c", "labels", "timestamp-ties-and-skew", "deep-tree"]
)
def test_matches_the_store_on_corpus_sessions(name: str) -> None:
    store = SessionStore.open(CONFORMANCE_DIR / "sessions" / f"{name}.jsonl")
    view = TreeView(store)
    check(view, store)
    middle = store.records[len(store.records) // 2].id
    store.branch(middle)
    check(view, store)


def test_follows_appends_branches_and_labels_and_caches(tmp_path: Path) -> None:
    store = fresh_store("/p", tmp_path)
    view = TreeView(store)
    first = store.append_message(user("q"))
    store.append_message(assistant("a"))
    check(view, store)
    cached = view.render()
    assert view.render() is cached  # nothing changed: the same bytes
    store.branch(first)
    store.append_message(assistant("other answer"))
    store.append_label(first, "start")
    check(view, store)
    store.reset_leaf()
    store.append_message(user("new root"))
    check(view, store)
    for i in range(600):  # more than two cached blocks
        store.append_message(user(f"m{i}"))
    check(view, store)
    asyncio.run(view.warm(batch=100))
    check(view, store)


def test_label_and_context_edit_nodes_name_their_target(tmp_path: Path) -> None:
    store = fresh_store("/p", tmp_path)
    view = TreeView(store)
    first = store.append_message(user("q"))
    answer = store.append_message(assistant("a"))
    labelled = store.append_label(first, "start: the\nquestion")
    cleared = store.append_label(first)
    edited = store.append_context_edit(answer, None)
    nodes = {n["id"]: n for n in json.loads(view.render())["nodes"]}
    assert (nodes[labelled]["targetId"], nodes[labelled]["targetLabel"]) == (
        first,
        "start: the\nquestion",  # the whole label, not the one-line preview
    )
    assert (nodes[cleared]["targetId"], nodes[cleared]["targetLabel"]) == (first, None)
    assert (nodes[edited]["targetId"], nodes[edited]["targetLabel"]) == (answer, None)
    assert (nodes[first]["targetId"], nodes[first]["targetLabel"]) == (None, None)
    assert view.node(labelled)["targetId"] == first  # what entry_appended carries

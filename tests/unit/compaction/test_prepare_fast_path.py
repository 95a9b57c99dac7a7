"""The preparation's fast paths give the plan of the definition (the plan over the projection).

``prepare_compaction`` on a plain path lays the window's messages flat without projecting when
nothing is edited (``path_run``); on :func:`compaction_window`'s answer it reads the run the
store's context builder already holds (``spine_run``). Hypothesis grows session files with
every entry type pi 1.6.0 writes (compactions keeping any entry, nothing or a missing one;
context edits; branch summaries; system messages) and checks, at every entry and several
budgets, that both give what :func:`prepare_run` gives over ``project_path`` of the window.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.compaction import CompactionPreparation, CompactionSettings, TokenCounter
from pi_lsp.compaction.prepare import (
    compaction_window,
    prepare_compaction,
    prepare_run,
)
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import Record
from pi_lsp.session.projection import project_path
from pi_lsp.session.runs import ProjectedRun, ProjectedWindow, context_bounds, path_run
from tests.interop.session_trees import session_lines

KEEPS = (1, 30, 200, 100_000)


def definition(
    path: list[Record], keep: int
) -> tuple[CompactionPreparation | None, ProjectedRun, list[Record]]:
    """The plan over the projection of the path's context, the projection, and the window."""
    begin, at = context_bounds(path)
    window = path[begin:]
    projected = project_path(window)
    after = len(projected) - (len(path) - 1 - at) if at >= 0 else 0
    run = ProjectedRun.of_projected(projected, after)
    settings_ = CompactionSettings(keep_recent_tokens=keep)
    if path[-1].type == "compaction":  # nothing to prepare (prepare_compaction's first check)
        return None, run, window
    return prepare_run(run, window, settings_, TokenCounter()), run, window


def same(got: CompactionPreparation | None, want: CompactionPreparation | None) -> None:
    if want is None:
        assert got is None
        return
    assert got is not None
    assert got == want
    assert got.to_plan() == want.to_plan()  # file lists in order (dict equality ignores it)
    assert json.dumps(got.messages_to_summarize) == json.dumps(want.messages_to_summarize)
    assert json.dumps(got.turn_prefix_messages) == json.dumps(want.turn_prefix_messages)


def check_leaf(store: SessionStore, leaf: str, counters: dict[int, TokenCounter]) -> int:
    """Compare every way to the plan at ``leaf``; 1 when the store's run was used."""
    path = store.branch_path(leaf)
    used = 0
    for keep in KEEPS:
        want, run, window = definition(path, keep)
        begin = len(path) - len(window)
        at = context_bounds(path)[1] - begin if context_bounds(path)[1] >= 0 else -1
        flat = path_run(window, at)
        if flat is not None:
            assert flat == run
        records = store.context_run(leaf)
        if records is not None:
            assert records.run() == run
            assert records == path[len(path) - len(records) :]
            assert len(records) in (len(window), len(path) - context_bounds(path)[1])
            used = 1
        settings_ = CompactionSettings(keep_recent_tokens=keep)
        fast = prepare_compaction(compaction_window(store, leaf), settings_, counters[keep])
        same(fast, want)
        same(prepare_compaction(path, settings_, counters[keep]), want)
        same(prepare_compaction(path, settings_), want)
    return used


@settings(max_examples=200, deadline=None)
@given(session_lines(max_entries=45), st.randoms(use_true_random=False))
def test_fast_paths_give_the_plan_of_the_projection(lines: list[dict[str, Any]], rng: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "s.jsonl"
        file.write_text("".join(json.dumps(line) + "\n" for line in lines))
        store = SessionStore.open(file)
        try:
            ids = [r.id for r in store.records]
            counters = {keep: TokenCounter() for keep in KEEPS}  # warm across leaves
            order = ids + rng.sample(ids, len(ids))  # spines extended, then cut and regrown
            for leaf in order:
                check_leaf(store, leaf, counters)
        finally:
            store.close()


def test_a_window_changed_after_it_was_taken_is_projected_again() -> None:
    store = SessionStore.create("/p", persist=False)
    first = store.append_message(user("x " * 400))
    store.append_message(assistant("y " * 400))
    store.append_compaction("S", first, 500)
    store.append_message(user("z " * 400))
    store.append_message(assistant("w " * 400))
    window = compaction_window(store)
    assert isinstance(window, ProjectedWindow) and window.run() is not None
    settings_ = CompactionSettings(keep_recent_tokens=150)
    want = definition(store.branch_path(), 150)[0]
    same(prepare_compaction(window, settings_), want)
    window.pop()  # ends one entry earlier now: another leaf, another plan
    assert window.run() is None
    same(prepare_compaction(window, settings_), definition(list(window), 150)[0])
    assert check_leaf(store, store.leaf_id or "", {k: TokenCounter() for k in KEEPS}) == 1

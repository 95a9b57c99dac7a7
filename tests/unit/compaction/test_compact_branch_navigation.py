"""Branch summaries and tree navigation (pi's navigateTree rules)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.compaction import (
    BranchSummarySettings,
    CompactionError,
    SummarizationError,
    SummaryRequest,
    collect_branch_entries,
    navigate_tree,
    prepare_branch_entries,
)
from pi_lsp.compaction.compact import BRANCH_INSTRUCTIONS, BRANCH_PREAMBLE
from pi_lsp.compaction.summarize import SYSTEM_PROMPT
from pi_lsp.devtools.builders import (
    assistant,
    call,
    fresh_store,
    tool_result,
    user,
)
from pi_lsp.session import EntryNotFoundError, SessionStore
from tests.unit.compaction.helpers import RecordingModel, entry_keys, memory_store, written_line


def forked() -> tuple[SessionStore, dict[str, str]]:
    """root question, answer, then a side branch (explore) that the leaf sits on."""
    store = memory_store()
    ids = {"q1": store.append_message(user("question one"))}
    ids["a1"] = store.append_message(assistant("answer one"))
    ids["q2"] = store.append_message(user("explore an idea"))
    ids["a2"] = store.append_message(
        assistant("", calls=[call("edit", path="idea.py", oldText="a", newText="b")])
    )
    ids["r2"] = store.append_message(tool_result("edited idea.py"))
    ids["a3"] = store.append_message(assistant("the idea works"))
    return store, ids


def test_collect_walks_from_the_old_leaf_to_the_common_ancestor() -> None:
    store, ids = forked()
    collected = collect_branch_entries(store, ids["a3"], ids["a1"])
    assert collected.common_ancestor_id == ids["a1"]
    assert [r.id for r in collected.entries] == [ids["q2"], ids["a2"], ids["r2"], ids["a3"]]
    store.branch(ids["a1"])
    other = store.append_message(user("another way"))
    collected = collect_branch_entries(store, ids["a3"], other)
    assert collected.common_ancestor_id == ids["a1"]
    assert collect_branch_entries(store, None, other).entries == []


def test_prepare_skips_tool_results_and_respects_the_budget() -> None:
    store, ids = forked()
    entries = collect_branch_entries(store, ids["a3"], ids["q1"]).entries
    prep = prepare_branch_entries(entries)
    assert ids["r2"] not in prep.entry_ids
    assert [r.role for r in prep.refs()] == ["assistant", "user", "assistant", "assistant"]
    assert list(prep.file_ops.edited) == ["idea.py"]
    newest_only = prepare_branch_entries(entries, token_budget=prep.total_tokens - 1)
    assert newest_only.entry_ids == prep.entry_ids[1:]  # the oldest message no longer fits


def test_summary_entries_squeeze_in_under_90_percent_of_the_budget() -> None:
    store = memory_store()
    root = store.append_message(user("start"))
    big = store.branch_with_summary(
        root, "S" * 400, {"readFiles": ["r.md"], "modifiedFiles": []}, from_hook=False
    )
    store.append_message(user("x" * 40))
    entries = collect_branch_entries(store, store.leaf_id, root).entries
    assert entries[0].id == big
    prep = prepare_branch_entries(entries, token_budget=50)  # 10 + 100 > 50, but 10 < 45
    assert prep.entry_ids[0] == big and prep.total_tokens == 110
    assert list(prep.file_ops.read) == ["r.md"]
    prep = prepare_branch_entries(entries, token_budget=11)  # 10 >= 9.9: no room
    assert prep.entry_ids == [entries[1].id]


async def test_navigating_to_the_leaf_does_nothing() -> None:
    store, ids = forked()
    result = await navigate_tree(store, ids["a3"], model=RecordingModel(), summarize=True)
    assert not result.moved and store.leaf_id == ids["a3"] and store.entry_count == 6


async def test_unknown_target_and_missing_model() -> None:
    store, ids = forked()
    with pytest.raises(EntryNotFoundError):
        await navigate_tree(store, "nope")
    with pytest.raises(CompactionError, match="No model"):
        await navigate_tree(store, ids["a1"], summarize=True)


async def test_user_target_returns_its_text_and_leaves_the_leaf_at_its_parent() -> None:
    store, ids = forked()
    result = await navigate_tree(store, ids["q2"])
    assert result.editor_text == "explore an idea"
    assert store.leaf_id == ids["a1"] == result.leaf_id
    assert store.entry_count == 6  # nothing written


async def test_root_user_target_resets_the_leaf() -> None:
    store, ids = forked()
    result = await navigate_tree(store, ids["q1"])
    assert result.editor_text == "question one" and store.leaf_id is None


async def test_custom_message_target_is_edited_like_a_user_message() -> None:
    store, ids = forked()
    note = store.append_custom_message(
        "note", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], True
    )
    store.append_message(assistant("after note"))
    result = await navigate_tree(store, note)
    assert result.editor_text == "ab" and store.leaf_id == ids["a3"]


async def test_other_targets_become_the_leaf_with_an_optional_label() -> None:
    store, ids = forked()
    result = await navigate_tree(store, ids["a1"], label="checkpoint")
    assert result.editor_text is None
    assert store.labels == {ids["a1"]: "checkpoint"}
    assert store.require(store.leaf_id or "").parent_id == ids["a1"]  # the label entry hangs there


async def test_summary_hangs_under_the_new_leaf(tmp_path: Path) -> None:
    store = fresh_store("/p", tmp_path)
    q1 = store.append_message(user("question one"))
    a1 = store.append_message(assistant("answer one"))
    store.append_message(user("explore an idea"))
    store.append_message(
        assistant("", calls=[call("edit", path="idea.py", oldText="a", newText="b")])
    )
    old_leaf = store.append_message(tool_result("edited"))
    model = RecordingModel(answer=lambda r: "BRANCH WORK", context_window=None)
    result = await navigate_tree(store, a1, model=model, summarize=True, label="back")
    [request] = model.requests
    assert (
        request.system == SYSTEM_PROMPT and request.max_tokens == 2048 and request.reasoning is None
    )
    assert request.prompt.startswith("<conversation>\n[User]: explore an idea")
    assert request.prompt.endswith("</conversation>\n\n" + BRANCH_INSTRUCTIONS)
    assert "[Tool result]" not in request.prompt
    summary = store.require(result.summary_entry_id or "")
    assert summary.parent_id == a1
    assert (
        summary.value["summary"]
        == BRANCH_PREAMBLE + "BRANCH WORK\n\n<modified-files>\nidea.py\n</modified-files>"
    )
    assert summary.value["details"] == {"readFiles": [], "modifiedFiles": ["idea.py"]}
    # pi 1.6.0: fromId names the leaf left behind (v0.58.3 wrote the branch point).
    assert summary.value["fromHook"] is False and summary.value["fromId"] == old_leaf
    assert store.labels == {summary.id: "back"}
    line = written_line(store, -2)
    assert list(line) == entry_keys("fromId", "summary", "details", "fromHook")
    context = store.context()
    assert [m["role"] for m in context.messages] == ["user", "assistant", "branchSummary"]
    assert q1 in context.entry_ids


async def test_summary_of_a_root_target_is_a_new_root() -> None:
    store, ids = forked()
    old_leaf = store.leaf_id
    result = await navigate_tree(store, ids["q1"], model=RecordingModel(), summarize=True)
    summary = store.require(result.summary_entry_id or "")
    assert summary.parent_id is None and summary.value["fromId"] == old_leaf  # pi 1.6.0
    assert result.editor_text == "question one"


async def test_focus_and_replaced_instructions() -> None:
    store, ids = forked()
    model = RecordingModel()
    await navigate_tree(store, ids["a1"], model=model, summarize=True, focus="the idea")
    assert model.requests[0].prompt.endswith(BRANCH_INSTRUCTIONS + "\n\nAdditional focus: the idea")
    store, ids = forked()
    await navigate_tree(
        store,
        ids["a1"],
        model=model,
        summarize=True,
        focus="Just list files.",
        replace_instructions=True,
    )
    assert model.requests[1].prompt.endswith("</conversation>\n\nJust list files.")


async def test_budget_comes_from_the_window_minus_the_reserve() -> None:
    store, ids = forked()
    model = RecordingModel(context_window=16384 + 10)  # a budget of 10 tokens
    await navigate_tree(
        store, ids["a1"], model=model, summarize=True, settings=BranchSummarySettings()
    )
    assert (
        model.requests[0].prompt
        == "<conversation>\n[Assistant]: the idea works\n</conversation>\n\n" + BRANCH_INSTRUCTIONS
    )


async def test_a_branch_without_messages_needs_no_model() -> None:
    store, ids = forked()
    store.branch(ids["a1"])
    store.append_model_change("openai", "gpt-5")
    model = RecordingModel()
    result = await navigate_tree(store, ids["q2"], model=model, summarize=True)
    assert model.requests == []
    assert (
        store.require(result.summary_entry_id or "").value["summary"] == "No content to summarize"
    )


async def test_abort_or_failure_leaves_the_session_untouched() -> None:
    store, ids = forked()
    model = RecordingModel(gate=asyncio.Event())
    task = asyncio.create_task(navigate_tree(store, ids["q2"], model=model, summarize=True))
    while not model.requests:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (store.leaf_id, store.entry_count) == (ids["a3"], 6)

    def fail(request: SummaryRequest) -> str:
        raise RuntimeError("overloaded")

    with pytest.raises(SummarizationError, match="overloaded"):
        await navigate_tree(store, ids["q2"], model=RecordingModel(answer=fail), summarize=True)
    assert (store.leaf_id, store.entry_count) == (ids["a3"], 6)

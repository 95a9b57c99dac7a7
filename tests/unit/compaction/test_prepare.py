"""The preparation: pi's ranges, the D2 fix for a second compaction, nothing-to-compact cases."""

from __future__ import annotations

import pytest

from pi_lsp.compaction import (
    AlreadyCompactedError,
    CompactionSettings,
    NothingToCompactError,
    estimate_context_tokens,
    plan_compaction,
    prepare_compaction,
)
from pi_lsp.devtools.builders import assistant, call, tool_result, user
from pi_lsp.session import SessionStore
from pi_lsp.session.projection import entry_messages
from tests.unit.compaction.helpers import memory_store

HUNDRED = "x" * 400  # 100 tokens at chars/4
KEEP_300 = CompactionSettings(keep_recent_tokens=300)


def turns(store: SessionStore, *names: str) -> dict[str, str]:
    """One user/assistant pair per name (100 tokens each message); name -> user entry id."""
    ids = {}
    for name in names:
        ids[name] = store.append_message(user(f"{name} {HUNDRED}"))
        store.append_message(assistant(HUNDRED, calls=[call("read", path=f"{name}.py")]))
    return ids


def texts(messages: list[dict]) -> list[str]:
    return [m["content"][0]["text"].split()[0] for m in messages if m["role"] == "user"]


def test_first_compaction_summarizes_everything_before_the_cut() -> None:
    store = memory_store()
    ids = turns(store, "t1", "t2", "t3", "t4")
    prep = prepare_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=200))
    assert prep is not None
    assert prep.first_kept_entry_id == ids["t4"]
    assert not prep.is_split_turn and prep.turn_prefix_messages == []
    assert texts(prep.messages_to_summarize) == ["t1", "t2", "t3"]
    assert prep.previous_summary is None and prep.previous_kept_count == 0
    assert prep.file_lists().read_files == ["t1.py", "t2.py", "t3.py"]


def test_split_turn_puts_the_turn_start_in_the_prefix() -> None:
    store = memory_store()
    turns(store, "t1")
    start = store.append_message(user("t2 big job"))
    for n in range(3):
        store.append_message(assistant("", calls=[call("edit", f"c{n}", path=f"e{n}.py")]))
        store.append_message(tool_result(HUNDRED, f"c{n}"))
    prep = prepare_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=150))
    assert prep is not None and prep.is_split_turn
    assert prep.turn_prefix_ids[0] == start
    roles = ["user", "assistant", "toolResult", "assistant", "toolResult"]
    assert [m["role"] for m in prep.turn_prefix_messages] == roles  # kept: the last call + result
    assert texts(prep.messages_to_summarize) == ["t1"]
    assert prep.file_lists().modified_files == ["e0.py", "e1.py"]  # the prefix's edits count too


def test_tokens_before_is_the_usage_anchored_estimate_of_the_range() -> None:
    store = memory_store()
    turns(store, "t1", "t2")
    store.append_message(user("pending " + HUNDRED))
    path = store.branch_path()
    prep = prepare_compaction(path, KEEP_300)
    assert prep is not None
    messages = [m for r in path for m in entry_messages(r)]
    assert prep.tokens_before == estimate_context_tokens(messages).tokens == 15 + 102


def compacted_once(store: SessionStore, *, from_hook: bool = False) -> dict[str, str]:
    """t1..t4, then a compaction that kept t3 and t4 verbatim, then t5 and t6."""
    ids = turns(store, "t1", "t2", "t3", "t4")
    store.append_compaction(
        "FIRST SUMMARY",
        ids["t3"],
        1234,
        details={"readFiles": ["old-read.py"], "modifiedFiles": ["old-edit.py"]},
        from_hook=from_hook,
    )
    ids.update(turns(store, "t5", "t6"))
    return ids


def test_second_compaction_summarizes_what_the_first_kept_d2() -> None:
    store = memory_store()
    ids = compacted_once(store)
    prep = prepare_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=200))
    assert prep is not None
    assert prep.first_kept_entry_id == ids["t6"]  # the cut is pi's: after the compaction
    assert prep.previous_summary == "FIRST SUMMARY"
    # pi v0.58.3 would summarize only t5 and drop t3 and t4 from the context altogether.
    assert texts(prep.messages_to_summarize) == ["t3", "t4", "t5"]
    assert prep.previous_kept_count == 4
    assert prep.file_ops.to_out().model_dump() == {
        "read": ["old-read.py", "t3.py", "t4.py", "t5.py"],
        "written": [],
        "edited": ["old-edit.py"],
    }


def test_summaries_of_extensions_are_not_mined_for_files_but_their_kept_part_is_summarized() -> (
    None
):
    store = memory_store()
    compacted_once(store, from_hook=True)
    prep = prepare_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=200))
    assert prep is not None
    assert texts(prep.messages_to_summarize) == ["t3", "t4", "t5"]
    assert list(prep.file_ops.read) == ["t3.py", "t4.py", "t5.py"]
    assert not prep.file_ops.edited


def test_a_kept_entry_not_on_the_path_adds_nothing() -> None:
    store = memory_store()
    turns(store, "t1", "t2")
    store.append_compaction("S", "feedbeef", 10)
    turns(store, "t3", "t4")
    prep = prepare_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=200))
    assert prep is not None
    assert texts(prep.messages_to_summarize) == ["t3"] and prep.previous_kept_count == 0


def test_after_a_compaction_only_its_kept_part_can_still_be_compacted() -> None:
    store = memory_store()
    ids = turns(store, "t1", "t2", "t3")
    store.append_compaction("S", ids["t2"], 10)
    store.append_message(user("t4 short"))
    # pi 1.6.0 plans over the projection: the kept t2, t3 are in range, and everything fits.
    with pytest.raises(NothingToCompactError):
        plan_compaction(store.branch_path(), CompactionSettings())
    prep = plan_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=1))
    assert prep.first_kept_entry_id == store.branch_path()[-1].id
    assert texts(prep.messages_to_summarize) == ["t2", "t3"]
    assert prep.previous_kept_count == 4


def test_a_cut_inside_the_kept_part_counts_only_what_is_summarized_of_it() -> None:
    store = memory_store()
    ids = turns(store, "t1", "t2", "t3")
    store.append_compaction("S", ids["t2"], 10)
    store.append_message(user("t4 short"))
    prep = plan_compaction(store.branch_path(), CompactionSettings(keep_recent_tokens=200))
    assert prep.first_kept_entry_id == ids["t3"] and not prep.is_split_turn
    assert texts(prep.messages_to_summarize) == ["t2"]
    assert prep.previous_kept_count == 2  # t2's user message and reply, both kept last time


def test_leaf_compaction_is_already_compacted() -> None:
    store = memory_store()
    ids = turns(store, "t1", "t2")
    store.append_compaction("S", ids["t2"], 10)
    assert prepare_compaction(store.branch_path(), CompactionSettings()) is None
    with pytest.raises(AlreadyCompactedError, match="Already compacted"):
        plan_compaction(store.branch_path(), CompactionSettings())


def test_small_sessions_have_nothing_to_compact() -> None:
    store = memory_store()
    turns(store, "t1", "t2")
    prep = prepare_compaction(store.branch_path(), CompactionSettings())
    assert prep is not None and prep.nothing_to_summarize  # pi would still ask the model
    with pytest.raises(NothingToCompactError, match="Nothing to compact"):
        plan_compaction(store.branch_path(), CompactionSettings())
    with pytest.raises(NothingToCompactError, match="empty"):
        plan_compaction([], CompactionSettings())


def test_plan_uses_the_corpus_field_names() -> None:
    store = memory_store()
    turns(store, "t1", "t2", "t3")
    plan = plan_compaction(store.branch_path(), KEEP_300).to_plan().model_dump(by_alias=True)
    assert list(plan) == [
        "firstKeptEntryId",
        "isSplitTurn",
        "tokensBefore",
        "previousSummary",
        "settings",
        "messagesToSummarize",
        "turnPrefixMessages",
        "previousKeptCount",
        "fileOps",
        "fileLists",
    ]
    assert plan["messagesToSummarize"][0] == {"entryId": store.branch_path()[0].id, "role": "user"}
    assert plan["settings"] == {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 300}

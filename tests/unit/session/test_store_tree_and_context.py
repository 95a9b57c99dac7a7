"""Tree operations and context building with pi's semantics (spec §2–3, pi's own tests §14)."""

from __future__ import annotations

import pytest

from pi_lsp.devtools.builders import (
    assistant,
    call,
    fresh_store,
    tool_result,
    user,
)
from pi_lsp.session import EntryNotFoundError, SessionStore, build_context
from pi_lsp.session.messages import convert_to_llm
from pi_lsp.session.tree import path_to_root


def store() -> SessionStore:
    return fresh_store("/proj")


def roles(s: SessionStore, leaf: str | None = None) -> list[str]:
    return [m["role"] for m in s.context(leaf).messages]


def test_empty_session_has_empty_context() -> None:
    s = store()
    context = s.context()
    assert (context.messages, context.thinking_level, context.model) == ([], "off", None)
    assert s.leaf_id is None
    assert s.tree().to_json() == {"roots": [], "nodes": []}


def test_every_append_links_to_the_leaf_and_advances_it() -> None:
    s = store()
    ids = [
        s.append_message(user("hi")),
        s.append_thinking_level_change("high"),
        s.append_model_change("openai", "gpt-5"),
        s.append_custom_entry("ext", {"k": 1}),
        s.append_custom_message("note", "remember", True),
        s.append_session_info("  named  "),
        s.append_compaction("S", "x", 10),
    ]
    ids.append(s.append_label(ids[0], "start"))
    path = s.branch_path()
    assert [r.id for r in path] == ids
    assert [r.parent_id for r in path] == [None, *ids[:-1]]
    assert s.leaf_id == ids[-1]
    assert s.session_name == "named"
    assert s.label_of(ids[0]) == "start"


def test_context_tracks_thinking_level_and_model() -> None:
    s = store()
    s.append_thinking_level_change("high")
    s.append_model_change("openai", "gpt-5")
    s.append_message(user("hi"))
    context = s.context()
    assert context.thinking_level == "high"
    assert context.model == {"provider": "openai", "modelId": "gpt-5"}
    s.append_message(assistant())  # an assistant message overrides the model change
    assert s.context().model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}


def test_compaction_replaces_history_before_first_kept() -> None:
    s = store()
    s.append_message(user("one"))
    s.append_message(assistant("a1"))
    kept = s.append_message(user("two"))
    s.append_message(assistant("a2"))
    compaction = s.append_compaction(
        "SUMMARY", kept, 1234, {"readFiles": [], "modifiedFiles": []}, False
    )
    s.append_message(user("three"))
    context = s.context()
    assert [m["role"] for m in context.messages] == [
        "compactionSummary",
        "user",
        "assistant",
        "user",
    ]
    assert context.messages[0]["summary"] == "SUMMARY"
    assert context.messages[0]["tokensBefore"] == 1234
    assert context.entry_ids[0] == compaction
    assert [m.get("content") for m in context.messages[1:2]] == [user("two")["content"]]


def test_only_the_latest_compaction_counts() -> None:
    s = store()
    first = s.append_message(user("one"))
    s.append_compaction("OLD", first, 1)
    second = s.append_message(user("two"))
    s.append_compaction("NEW", second, 2)
    summaries = [m["summary"] for m in s.context().messages if m["role"] == "compactionSummary"]
    assert summaries == ["NEW"]


def test_first_kept_missing_from_path_keeps_only_summary_and_later() -> None:
    s = store()
    s.append_message(user("one"))
    s.append_compaction("S", "not-on-path", 1)
    s.append_message(user("after"))
    assert roles(s) == ["compactionSummary", "user"]


def test_branch_moves_leaf_and_new_appends_become_children() -> None:
    s = store()
    root = s.append_message(user("q"))
    a1 = s.append_message(assistant("first answer"))
    s.branch(root)
    a2 = s.append_message(assistant("second answer"))
    assert {r.id for r in s.children(root)} == {a1, a2}
    assert [m["content"][0]["text"] for m in s.context().messages] == ["q", "second answer"]
    assert [m["content"][0]["text"] for m in s.context(a1).messages] == ["q", "first answer"]
    with pytest.raises(EntryNotFoundError, match="Entry nope not found"):
        s.branch("nope")


def test_reset_leaf_starts_a_new_root() -> None:
    s = store()
    s.append_message(user("first tree"))
    s.reset_leaf()
    assert s.context().messages == []
    second = s.append_message(user("second tree"))
    assert s.require(second).parent_id is None
    assert len(s.tree().roots) == 2


def test_branch_with_summary_hangs_summary_off_target() -> None:
    s = store()
    root = s.append_message(user("q"))
    left = s.append_message(assistant("abandoned"))
    summary_id = s.branch_with_summary(
        root, "learned X", {"readFiles": [], "modifiedFiles": []}, False
    )
    entry = s.require(summary_id).value
    # fromId is the leaf left behind (pi 1.6.0; v0.58.3 wrote the branch point)
    assert (entry["parentId"], entry["fromId"], entry["fromHook"]) == (root, left, False)
    assert roles(s) == ["user", "branchSummary"]
    llm = convert_to_llm(s.context().messages)
    assert llm[1]["content"][0]["text"].startswith("The following is a summary of a branch")
    root_summary = s.branch_with_summary(None, "from root")
    assert s.require(root_summary).value["fromId"] == summary_id  # the leaf it left
    s.reset_leaf()
    assert s.require(s.branch_with_summary(None, "no leaf")).value["fromId"] == "root"
    assert s.require(root_summary).parent_id is None
    with pytest.raises(EntryNotFoundError):
        s.branch_with_summary("nope", "x")


def test_empty_branch_summary_is_not_in_context() -> None:
    s = store()
    root = s.append_message(user("q"))
    s.branch_with_summary(root, "")
    assert roles(s) == ["user"]


def test_labels_set_clear_last_wins_and_never_enter_context() -> None:
    s = store()
    target = s.append_message(user("q"))
    s.append_label(target, "one")
    s.append_label(target, "two")
    assert s.labels == {target: "two"}
    s.append_label(target)
    assert s.labels == {}
    s.append_label(target, "again")
    s.append_label(target, "")
    assert s.labels == {}
    assert roles(s) == ["user"]
    assert "label" not in s.branch_path()[3].value  # cleared with None: no label key
    assert s.branch_path()[-1].value["label"] == ""  # cleared with "": written as ""
    with pytest.raises(EntryNotFoundError):
        s.append_label("missing", "x")


def test_custom_entries_are_in_tree_but_not_context_custom_messages_are() -> None:
    s = store()
    s.append_message(user("q"))
    custom = s.append_custom_entry("state", {"n": 1})
    s.append_custom_message("note", [{"type": "text", "text": "ctx"}], False, {"d": 1})
    assert custom in {r.id for r in s.branch_path()}
    assert roles(s) == ["user", "custom"]
    message = s.context().messages[1]
    assert (message["customType"], message["display"], message["details"]) == (
        "note",
        False,
        {"d": 1},
    )
    keys = list(s.require(custom).value)
    assert keys == ["type", "customType", "data", "id", "parentId", "timestamp"]


def test_tree_sorts_children_by_timestamp_and_lists_orphans_as_roots() -> None:
    s = store()
    root = s.append_message(user("q"))
    s.append_message(assistant("a"))
    s.branch(root)
    s.append_message(assistant("b"))
    tree = s.tree()
    assert tree.roots == (root,)
    assert tree.nodes[0].record.id == root
    assert len(tree.nodes[0].children) == 2
    assert path_to_root({}, "x") == []


def test_context_follows_current_branch_only_and_tool_results_pass_through() -> None:
    s = store()
    s.append_message(user("read it"))
    s.append_message(assistant("", calls=[call("read", path="a.py")], stop="toolUse"))
    s.append_message(tool_result("contents", "c1"))
    s.append_message(assistant("done"))
    assert roles(s) == ["user", "assistant", "toolResult", "assistant"]
    assert build_context(s.branch_path()).messages == s.context().messages


def test_unknown_leaf_is_an_error_for_the_store() -> None:
    s = store()
    s.append_message(user("q"))
    with pytest.raises(EntryNotFoundError):
        s.context("missing")


def test_invalid_messages_are_refused_before_anything_is_written() -> None:
    from pi_lsp.session.appends import InvalidMessageError

    s = store()
    with pytest.raises(InvalidMessageError, match="timestamp"):
        s.append_message({"role": "user", "content": "no timestamp"})
    with pytest.raises(InvalidMessageError):
        s.append_message(
            {"role": "compactionSummary", "summary": "x", "tokensBefore": 1, "timestamp": 1}
        )
    assert s.entry_count == 0


def test_pi16_writes_context_edits_usage_and_compaction_system_messages() -> None:
    s = store()
    system = {"role": "system", "content": "", "sections": {"preamble": "P", "tools": "T"}}
    s.append_message({**system, "timestamp": 5, "toolsAdded": [{"name": "read"}]})
    u = s.append_message(user("q"))
    a = s.append_message(assistant("long partial"))
    with pytest.raises(ValueError, match="editable"):
        s.append_context_edit(s.branch_path()[0].id, None)
    s.append_context_edit(a, {"content": "short"})
    assert s.context().messages[-1]["content"] == [{"type": "text", "text": "short"}]
    s.append_context_edit(a, None)
    assert [m["role"] for m in s.context().messages] == ["system", "user"]
    s.append_usage("cache_warm", "openai", "m", {"input": 1})
    c = s.append_compaction("S", None, 10, usage={"input": 2})
    value = s.require(c).value
    assert value["firstKeptEntryId"] == c and value["usage"] == {"input": 2}  # retain-none
    assert value["systemMessage"]["sections"] == {"preamble": "P", "tools": "T"}
    assert value["systemMessage"]["toolsAdded"] == [{"name": "read"}]
    assert [m["role"] for m in s.context().messages] == ["system", "compactionSummary"]
    assert u not in s.context().entry_ids


def test_session_names_are_sanitized_and_an_empty_one_clears() -> None:
    s = store()
    s.append_session_info("  two\r\nlines\n\nname ")
    assert s.require(s.leaf_id or "").value["name"] == "two lines name"
    assert s.session_name == "two lines name"
    s.append_session_info("")
    assert s.session_name is None

"""The cut point (pi 1.6.0's findProjectedCutPoint): budget walk, valid cut points, extension,
split turns. A path without compactions or edits projects to itself, entry for entry."""

from __future__ import annotations

from pi_lsp.compaction import TokenCounter, find_cut_point
from pi_lsp.devtools.builders import assistant, call, tool_result, user
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import Record
from pi_lsp.session.projection import project
from tests.unit.compaction.helpers import memory_store

HUNDRED = "x" * 400  # 100 tokens at chars/4


def cut(path: list[Record], keep: int, start: int = 0) -> tuple[int, int, bool]:
    entries = project(path)
    point = find_cut_point(entries, start, len(entries), keep, TokenCounter().count_projected)
    return point.first_kept_index, point.turn_start_index, point.is_split_turn


def conversation(turns: int) -> SessionStore:
    store = memory_store()
    for _ in range(turns):
        store.append_message(user(HUNDRED))
        store.append_message(assistant(HUNDRED))
    return store


def test_cut_lands_on_the_message_where_the_budget_is_reached() -> None:
    path = conversation(5).branch_path()  # 10 messages of 100 tokens
    assert cut(path, 300) == (7, 6, True)  # assistant at 7 reaches 300; its turn starts at 6
    assert cut(path, 400) == (6, -1, False)  # a user message: no split
    assert path[7].role == "assistant"


def test_everything_fits_keeps_everything() -> None:
    path = conversation(3).branch_path()
    assert cut(path, 100_000) == (0, -1, False)


def test_no_valid_cut_point_returns_the_start() -> None:
    store = memory_store()
    store.append_model_change("anthropic", "claude")
    store.append_message(tool_result(HUNDRED))
    store.append_thinking_level_change("high")
    assert cut(store.branch_path(), 10) == (0, -1, False)


def test_never_cuts_at_a_tool_result() -> None:
    store = memory_store()
    store.append_message(user("go"))
    store.append_message(assistant("", calls=[call("read", path="a")]))
    store.append_message(tool_result(HUNDRED * 3))  # budget reached here (index 2)
    store.append_message(assistant("done"))
    path = store.branch_path()
    assert cut(path, 200) == (3, 0, True)


def test_budget_exhausted_in_trailing_tool_results_keeps_their_call() -> None:
    store = memory_store()
    store.append_message(user("go"))
    store.append_message(assistant("", calls=[call("read", path="a")]))
    store.append_message(tool_result(HUNDRED * 3))
    # pi 1.6.0 keeps the preceding tool call (v0.58.3 fell back to keeping everything).
    assert cut(store.branch_path(), 200) == (1, 0, True)


def test_cut_takes_in_preceding_settings_entries_but_stops_at_messages() -> None:
    store = conversation(2)
    store.append_model_change("openai", "gpt-5")
    store.append_custom_entry("state", {"k": 1})
    store.append_message(user(HUNDRED))
    store.append_message(assistant(HUNDRED))
    path = store.branch_path()  # u a u a model custom u a
    # Pulled back from the user at 6 to the model change. As in pi, the cut entry is then no
    # longer a user message, so the turn search runs on and finds the user at 2: a "split".
    assert cut(path, 200) == (4, 2, True)
    assert path[4].type == "model_change"


def test_extension_stops_at_a_compaction_and_at_the_range_start() -> None:
    store = conversation(2)
    kept = store.branch_path()[2].id
    store.append_compaction("S", kept, 400)
    store.append_thinking_level_change("low")
    store.append_message(user(HUNDRED))
    store.append_message(assistant(HUNDRED))
    path = store.branch_path()  # u a u a C think u a
    assert cut(path, 200, start=5) == (5, -1, False)
    first, _, _ = cut(path, 200, start=0)
    assert first == 5  # the extension does not cross the compaction at 4


def test_a_custom_message_or_bash_cut_starts_its_own_turn() -> None:
    store = conversation(2)
    store.append_custom_message("note", "extension context " + HUNDRED, True)
    store.append_message(assistant(HUNDRED))
    path = store.branch_path()
    # pi 1.6.0: a custom message is context-visible, so the cut does not extend over it, and
    # its tokens count towards the budget (v0.58.3 gave (4, 4, True) and (3, 2, True)).
    assert cut(path, 100) == (5, 4, True)
    assert cut(path, 200) == (4, -1, False)


def test_turn_start_is_searched_only_down_to_the_range_start() -> None:
    store = memory_store()
    store.append_message(user("go"))
    for n in range(4):
        store.append_message(assistant("", calls=[call("read", f"c{n}", path=f"f{n}")]))
        store.append_message(tool_result(HUNDRED, f"c{n}"))
    path = store.branch_path()
    assert cut(path, 150) == (7, 0, True)
    assert cut(path, 150, start=1) == (7, -1, False)  # the user message lies before the range

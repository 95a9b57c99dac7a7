"""Conformance: compaction and branch-summary helpers against pi v0.58.3 (chars4 estimator).

Every ``compaction/<name>.compaction.json`` of the corpus is checked field by field. The
reference is now pi 1.6.0, which plans compactions differently from v0.58.3 in four ways, so
some corpus values are v0.58.3 behaviour that pi_lsp no longer has. ``PI16_CHANGES`` names
each such (test, corpus file) and why; for those the test asserts that the v0.58.3 value is NOT
reproduced, and ``tests/interop/test_corpus_pi16.py`` checks the same leaves, budgets and cut
ranges against the real pi 1.6.0 (its ``prepareCompaction`` and ``findCutPoint``):

* ``images``: user images count 4800 characters (v0.58.3 ignored them).
* ``turn``: branch summaries and custom messages are context-visible: they count towards the
  budget and the cut no longer extends over them; a compaction entry never starts a turn.
* ``projection``: after a compaction the plan runs over pi's projection, so the range the
  previous compaction kept is in the cut range (the D2 fix below is now pi's own behaviour),
  and cut points and ``firstKeptEntryId`` move accordingly.
* ``tool-tail``: when trailing tool results alone exceed the budget, the cut keeps their call.

Beyond that, pi_lsp differs from pi v0.58.3 on purpose in exactly two places, and the tests
state both exactly:

* D2 (second compaction): when a previous compaction lies on the path and kept messages
  verbatim (its ``firstKeptEntryId`` up to it), pi leaves those messages out of the next
  ``messagesToSummarize`` (they vanish from the context; upstream issue #2608). pi_lsp puts
  them first in ``messagesToSummarize``. Consequently ``serializedMessagesToSummarize`` gains
  their transcript in front, ``fileOps`` gains their tool-call paths, and ``fileLists`` /
  ``formattedFileOperations`` follow. Every other field (cut point, ``firstKeptEntryId``,
  ``isSplitTurn``, ``tokensBefore``, ``previousSummary``, turn prefix) is pi's exactly.
* Tool-result cut: pi cuts at 2000 UTF-16 code units even inside a surrogate pair, leaving half
  an emoji; pi_lsp keeps the pair out whole, so the kept text is one unit shorter and the
  marker counts one more truncated character.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.compaction import (
    CHARS4,
    CompactionSettings,
    FileOps,
    TokenCounter,
    collect_branch_entries,
    find_cut_point,
    format_file_operations,
    prepare_branch_entries,
    prepare_compaction,
    serialize_messages,
)
from pi_lsp.compaction.tokens import calculate_context_tokens, last_assistant_usage
from pi_lsp.session import SessionStore
from pi_lsp.session.jsonl import Record
from pi_lsp.session.messages import convert_to_llm
from pi_lsp.session.projection import Projected, entry_messages
from tests.conftest import CONFORMANCE_DIR

SESSIONS = CONFORMANCE_DIR / "sessions"
EXPECTED = CONFORMANCE_DIR / "compaction"
NAMES = sorted(p.name.removesuffix(".compaction.json") for p in EXPECTED.glob("*.compaction.json"))
SPLIT_PAIR_CUT = re.compile(r"[\ud800-\udbff]\n\n\[\.\.\. (\d+) more characters truncated\]")


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def heavy_form(text: str) -> dict[str, Any]:
    """The corpus's abbreviation of a text longer than 4000 UTF-16 code units."""
    data = _utf16(text)
    return {
        "sha256Utf16le": hashlib.sha256(data).hexdigest(),
        "utf16Length": len(data) // 2,
        "head": data[:2000].decode("utf-16-le", "surrogatepass"),
        "tail": data[-2000:].decode("utf-16-le", "surrogatepass"),
    }


def pi_cut_to_ours(text: str) -> str:
    """pi's tool-result marker after a split surrogate pair, as pi_lsp writes it."""
    return SPLIT_PAIR_CUT.sub(
        lambda m: f"\n\n[... {int(m[1]) + 1} more characters truncated]", text
    )


def assert_text(ours: str, expected: Any) -> None:
    if isinstance(expected, dict):
        assert heavy_form(ours) == expected
    else:
        assert ours == pi_cut_to_ours(expected)


def refs(ids: list[str], messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"entryId": i, "role": m["role"]} for i, m in zip(ids, messages, strict=True)]


class Case:
    """One corpus session opened as pi opened it, with its expected compaction values."""

    def __init__(self, name: str, tmp: Path) -> None:
        self.name = name
        self.expected = json.loads((EXPECTED / f"{name}.compaction.json").read_text())
        session = json.loads((SESSIONS / f"{name}.expected.json").read_text())
        path = SESSIONS / f"{name}.jsonl"
        if not path.exists():
            path = tmp / f"{name}.jsonl"
            with gzip.open(SESSIONS / f"{name}.jsonl.gz") as packed, path.open("wb") as out:
                shutil.copyfileobj(packed, out)
        assigned = iter((session["migration"] or {}).get("assignedIds") or [])
        self.store = SessionStore.open(path, uuids=lambda: next(assigned))
        self.path = self.store.branch_path()

    def context_messages(self) -> tuple[list[str], list[dict[str, Any]]]:
        context = self.store.context()
        return context.entry_ids, context.messages


PI16_CHANGES: dict[tuple[str, str], str] = {
    ("token_estimates", "images"): "images",
    ("cut_points", "images"): "images",
    ("preparations", "images"): "images",
    ("cut_points", "branch-summary-edge-cases"): "turn",
    ("preparations", "branch-summary-edge-cases"): "turn",
    ("cut_points", "branch-with-summary"): "turn",
    ("preparations", "branch-with-summary"): "turn",
    ("cut_points", "fixture-before-compaction"): "turn",
    ("preparations", "fixture-before-compaction"): "turn",
    ("preparations", "compaction-from-hook"): "projection",
    ("at_compaction", "compaction-from-hook"): "projection",
    ("preparations", "compaction-kept-toolresult"): "projection",
    ("preparations", "compaction-multiple"): "projection",
    ("at_compaction", "compaction-multiple"): "projection",
    ("preparations", "compaction-single"): "projection",
    ("preparations", "compaction-split-turn"): "projection",
    ("preparations", "compaction-then-branch"): "projection",
    ("at_compaction", "deep-tree"): "projection",
    ("preparations", "file-ops-unicode-sort"): "projection",
    ("preparations", "random-walk-a"): "projection",
    ("at_compaction", "random-walk-a"): "projection",
    ("at_compaction", "random-walk-b"): "projection",
    ("preparations", "random-walk-c"): "projection",
    ("at_compaction", "random-walk-c"): "projection",
}
"""(test, corpus file) where the corpus holds a v0.58.3 result that pi 1.6.0 changed, and why."""


def v058_check(test: str, case: Case, check: Callable[[], object]) -> None:
    """Run a v0.58.3 check; where pi 1.6.0 changed the result it must fail instead."""
    if (test, case.name) in PI16_CHANGES:
        with pytest.raises(AssertionError):
            check()
    else:
        check()


@pytest.fixture(scope="module", params=NAMES)
def case(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Case]:
    loaded = Case(request.param, tmp_path_factory.mktemp("corpus"))
    yield loaded
    loaded.store.close()


def test_corpus_is_present() -> None:
    assert len(NAMES) >= 44, f"expected the pi corpus in {EXPECTED}"


def test_path_and_leaf(case: Case) -> None:
    assert case.store.leaf_id == case.expected["leafId"]
    if "pathEntryIds" in case.expected:
        assert [r.id for r in case.path] == case.expected["pathEntryIds"]


def test_token_estimates_per_context_message(case: Case) -> None:
    _, messages = case.context_messages()

    def check() -> None:
        assert [CHARS4(m) for m in messages] == case.expected["contextTokenEstimates"]

    v058_check("token_estimates", case, check)


def test_estimate_context_tokens(case: Case) -> None:
    estimate = TokenCounter(CHARS4).estimate(case.store.context())
    assert estimate.model_dump(by_alias=True) == case.expected["estimateContextTokens"]


def test_last_assistant_usage(case: Case) -> None:
    usage = last_assistant_usage(case.path)
    assert _json(usage) == case.expected["lastAssistantUsage"]
    tokens = calculate_context_tokens(usage) if usage is not None else None
    assert tokens == case.expected["lastAssistantUsageContextTokens"]


def test_context_file_operations(case: Case) -> None:
    _, messages = case.context_messages()
    ops = FileOps()
    ops.add_messages(messages)
    assert ops.to_out().model_dump() == case.expected["contextFileOps"]
    assert ops.lists().model_dump(by_alias=True) == case.expected["contextFileLists"]


def test_context_serialized(case: Case) -> None:
    _, messages = case.context_messages()
    assert_text(serialize_messages(messages), case.expected["contextSerialized"])
    if "contextLlmMessages" in case.expected:
        assert _json(convert_to_llm(messages)) == case.expected["contextLlmMessages"]


def last_compaction_index(path: list[Record]) -> int:
    return max((i for i, r in enumerate(path) if r.type == "compaction"), default=-1)


def raw_projection(path: list[Record]) -> list[Projected]:
    """The path's entries with what each says on its own: pi's raw ``findCutPoint`` input."""
    return [Projected(r, entry_messages(r)) for r in path]


def check_cut_points(path: list[Record], expected_cuts: list[dict[str, Any]]) -> None:
    counter = TokenCounter(CHARS4)
    entries = raw_projection(path)
    for expected in expected_cuts:
        start, end = expected["startIndex"], expected["endIndex"]
        cut = find_cut_point(
            entries, start, end, expected["keepRecentTokens"], counter.count_projected
        )
        first, turn = cut.first_kept_index, cut.turn_start_index
        got = {
            "firstKeptEntryIndex": first,
            "turnStartIndex": turn,
            "isSplitTurn": cut.is_split_turn,
            "firstKeptEntryId": path[first].id if first < len(path) else None,
            "turnStartEntryId": path[turn].id if turn >= 0 else None,
        }
        assert got == {k: expected[k] for k in got}, expected["keepRecentTokens"]


def test_previous_compaction_and_cut_points(case: Case) -> None:
    assert last_compaction_index(case.path) == case.expected["previousCompactionIndex"]
    start = case.expected["previousCompactionIndex"] + 1
    assert all(c["startIndex"] == start for c in case.expected["cutPoints"])
    v058_check("cut_points", case, lambda: check_cut_points(case.path, case.expected["cutPoints"]))


def previously_kept(
    store: SessionStore, path: list[Record]
) -> tuple[list[str], list[dict[str, Any]]]:
    """What the last compaction on the path kept verbatim: its own context minus the summary.

    Computed with the session layer's context building (checked against pi elsewhere), not
    with the compaction code under test.
    """
    index = last_compaction_index(path)
    if index < 0:
        return [], []
    context = store.context(path[index].id)
    return context.entry_ids[1:], context.messages[1:]


def check_preparation(store: SessionStore, path: list[Record], keep: int, expected: Any) -> int:
    """Compare one preparation; returns how many D2 messages pi_lsp added."""
    settings = CompactionSettings(keep_recent_tokens=keep)
    prep = prepare_compaction(path, settings, TokenCounter(CHARS4))
    if expected is None:
        assert prep is None
        return 0
    assert prep is not None
    plan = prep.to_plan().model_dump(by_alias=True)
    # Fields where pi_lsp is exactly pi.
    for key in ("firstKeptEntryId", "isSplitTurn", "tokensBefore", "previousSummary", "settings"):
        assert plan[key] == expected[key], key
    assert plan["turnPrefixMessages"] == expected["turnPrefixMessages"]
    assert_text(serialize_messages(prep.turn_prefix_messages), expected["serializedTurnPrefix"])
    # D2: the previous compaction's kept messages open the summarized range.
    kept_ids, kept_messages = previously_kept(store, path)
    d2 = len(kept_ids)
    assert prep.previous_kept_count == d2
    assert (
        plan["messagesToSummarize"]
        == refs(kept_ids, kept_messages) + expected["messagesToSummarize"]
    )
    pi_part = prep.messages_to_summarize[d2:]
    assert_text(serialize_messages(pi_part), expected["serializedMessagesToSummarize"])
    ours_text = serialize_messages(prep.messages_to_summarize)
    kept_text = serialize_messages(kept_messages)
    assert ours_text.startswith(kept_text)
    extra = FileOps()
    extra.add_messages(kept_messages)
    expected_ops = {k: set(v) | set(getattr(extra, k)) for k, v in expected["fileOps"].items()}
    assert {k: set(v) for k, v in plan["fileOps"].items()} == expected_ops
    if d2 == 0:
        assert plan["fileOps"] == expected["fileOps"]  # insertion order too
        assert plan["fileLists"] == expected["fileLists"]
        assert format_file_operations(**_lists(plan)) == expected["formattedFileOperations"]
    else:
        reference = FileOps(
            *(dict.fromkeys(expected_ops[k]) for k in ("read", "written", "edited"))
        )
        assert plan["fileLists"] == reference.lists().model_dump(by_alias=True)
    return d2


def _lists(plan: dict[str, Any]) -> dict[str, list[str]]:
    lists = plan["fileLists"]
    return {"read_files": lists["readFiles"], "modified_files": lists["modifiedFiles"]}


def test_preparations(case: Case) -> None:
    def check() -> None:
        for item in case.expected["preparations"]:
            check_preparation(case.store, case.path, item["keepRecentTokens"], item["result"])

    v058_check("preparations", case, check)


def test_at_compaction_entries(case: Case) -> None:
    for item in case.expected["atCompactionEntries"]:
        compaction = case.store.require(item["compactionId"])
        assert compaction.parent_id == item["pathEndId"]
        path = case.store.branch_path(item["pathEndId"])
        if "pathEntryIds" in item:
            assert [r.id for r in path] == item["pathEntryIds"]
        recorded = item["recorded"]
        value = compaction.value
        assert recorded == {k: value.get(k) for k in recorded}
        assert last_compaction_index(path) == item["previousCompactionIndex"]

    def check() -> None:
        for item in case.expected["atCompactionEntries"]:
            _v058_at(case, case.store.branch_path(item["pathEndId"]), item)

    v058_check("at_compaction", case, check)


def _v058_at(case: Case, path: list[Record], item: dict[str, Any]) -> None:
    """The v0.58.3 values at one compaction entry: cut points, plans, what pi recorded."""
    check_cut_points(path, item["cutPoints"])
    for prep in item["preparations"]:
        check_preparation(case.store, path, prep["keepRecentTokens"], prep["result"])
    used = item["keepRecentTokensUsed"]
    if used is not None:  # pi's generator made this compaction: same cut, same tokens
        made = prepare_compaction(path, CompactionSettings(keep_recent_tokens=used))
        assert made is not None
        assert made.first_kept_entry_id == item["recorded"]["firstKeptEntryId"]
        assert made.tokens_before == item["recorded"]["tokensBefore"]


def test_branch_summary_probes(case: Case) -> None:
    for probe in case.expected["branchSummaryProbes"]:
        collected = collect_branch_entries(case.store, probe["oldLeafId"], probe["targetId"])
        assert collected.common_ancestor_id == probe["commonAncestorId"]
        assert [r.id for r in collected.entries] == probe["entryIds"]
        for expected in probe["prepared"]:
            prep = prepare_branch_entries(collected.entries, expected["tokenBudget"])
            assert [r.model_dump(by_alias=True) for r in prep.refs()] == expected["messages"]
            assert prep.total_tokens == expected["totalTokens"]
            assert prep.file_ops.to_out().model_dump() == expected["fileOps"]
            lists = prep.file_ops.lists()
            assert lists.model_dump(by_alias=True) == expected["fileLists"]
            formatted = format_file_operations(lists.read_files, lists.modified_files)
            assert formatted == expected["formattedFileOperations"]
            assert_text(serialize_messages(prep.messages), expected["serialized"])


# ---------------------------------------------------------------------------------------------
# The two deliberate differences, stated on concrete corpus files.


def test_d2_second_compaction_of_compaction_multiple(tmp_path: Path) -> None:
    """At the leaf of compaction-multiple, keepRecentTokens 2000: v0.58.3 summarized nothing.

    v0.58.3's cut landed on the first entry after the previous compaction, so its
    ``messagesToSummarize`` was empty and the 28 messages that compaction kept verbatim would
    have left the context for good (D2). pi 1.6.0 plans over its projection, where those 28
    messages lie in the cut range: the budget cuts inside them (a split turn) and the older
    ones are summarized. pi_lsp does the same (checked against the real pi in tests/interop).
    """
    case = Case("compaction-multiple", tmp_path)
    pi = next(p["result"] for p in case.expected["preparations"] if p["keepRecentTokens"] == 2000)
    assert pi["messagesToSummarize"] == [] and not pi["isSplitTurn"]
    prep = prepare_compaction(case.path, CompactionSettings(keep_recent_tokens=2000))
    assert prep is not None
    kept_ids, _ = previously_kept(case.store, case.path)
    assert len(kept_ids) == 28
    assert prep.summarize_ids == kept_ids[:6] and prep.previous_kept_count == 6
    assert prep.is_split_turn and prep.first_kept_entry_id in kept_ids
    assert prep.first_kept_entry_id != pi["firstKeptEntryId"]
    assert prep.tokens_before == pi["tokensBefore"]


def test_tool_result_cut_keeps_surrogate_pairs_whole(tmp_path: Path) -> None:
    case = Case("tool-calls-parallel-long-results", tmp_path)
    pi_text = case.expected["contextSerialized"]
    [match] = SPLIT_PAIR_CUT.finditer(pi_text)  # pi left half an emoji before the marker
    ours = serialize_messages(case.context_messages()[1])
    assert (
        ours
        == pi_text[: match.start()]
        + f"\n\n[... {int(match[1]) + 1} more characters truncated]"
        + pi_text[match.end() :]
    )
    ours.encode("utf-8")  # well-formed, unlike pi's text


def test_generated_compactions_record_what_the_preparation_gives(tmp_path: Path) -> None:
    """pi's generator wrote each compaction from its preparation: same cut, tokens and details
    (details differ only where D2 adds the previously kept messages' files)."""
    checked = 0
    for name in (
        "compaction-single",
        "compaction-multiple",
        "compaction-split-turn",
        "random-walk-c",
    ):
        case = Case(name, tmp_path)
        for item in case.expected["atCompactionEntries"]:
            if item["keepRecentTokensUsed"] is None:
                continue
            path = case.store.branch_path(item["pathEndId"])
            prep = prepare_compaction(
                path, CompactionSettings(keep_recent_tokens=item["keepRecentTokensUsed"])
            )
            assert prep is not None
            if prep.previous_kept_count == 0:
                assert prep.file_lists().model_dump(by_alias=True) == item["recorded"]["details"]
                checked += 1
    assert checked >= 5


# ---------------------------------------------------------------------------------------------
# Golden values of pi's two test fixtures (spec §13).


def _roles(messages: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for message in messages:
        counts[message["role"]] = counts.get(message["role"], 0) + 1
    return counts


def _message_entry_sum(path: list[Record]) -> int:
    return sum(CHARS4(r.value["message"]) for r in path if r.type == "message")


async def test_golden_before_compaction(tmp_path: Path) -> None:
    from pi_lsp.compaction.summarize import summarize_compaction
    from tests.unit.compaction.helpers import RecordingModel

    case = Case("fixture-before-compaction", tmp_path)
    _ids, messages = case.context_messages()
    assert len(messages) == 446
    assert _roles(messages) == {
        "compactionSummary": 1,
        "user": 31,
        "assistant": 219,
        "toolResult": 192,
        "bashExecution": 3,
    }
    estimate = TokenCounter().estimate(case.store.context())
    assert (
        estimate.tokens,
        estimate.usage_tokens,
        estimate.last_usage_index,
        estimate.trailing_tokens,
    ) == (180820, 168018, 444, 12802)
    assert _message_entry_sum(case.path) == 375_427
    prep = prepare_compaction(case.path, CompactionSettings())
    assert prep is not None
    # The same cut as v0.58.3's, at path index 946 (turn from 939); the indices are now into
    # pi 1.6.0's projection: the compaction, the 77 entries it kept, then path[628:].
    assert (prep.cut.first_kept_index, prep.cut.turn_start_index, prep.is_split_turn) == (
        1 + 77 + 946 - 628,
        1 + 77 + 939 - 628,
        True,
    )
    assert prep.first_kept_entry_id == case.path[946].id and case.path[946].role == "assistant"
    assert prep.turn_prefix_ids[0] == case.path[939].id
    assert prep.tokens_before == 180820 and prep.previous_summary
    assert len(prep.turn_prefix_messages) == 7
    # D2: the previous compaction (path index 627) kept path[550:627] verbatim: 77 messages
    # come first; pi's 306 follow.
    assert prep.previous_kept_count == 77
    assert len(prep.messages_to_summarize) == 77 + 306
    pi_part = serialize_messages(prep.messages_to_summarize[77:])
    assert (
        len(_utf16(pi_part)) // 2 == 296_614 and pi_part.count("more characters truncated]") == 25
    )
    pi_ops = FileOps()
    pi_ops.add_details(case.path[627].value.get("details"))  # v1 compactions have none
    pi_ops.add_messages(prep.messages_to_summarize[77:])
    pi_ops.add_messages(prep.turn_prefix_messages)
    assert tuple(len(s) for s in (pi_ops.read, pi_ops.written, pi_ops.edited)) == (7, 7, 5)
    lists = pi_ops.lists()
    assert (len(lists.read_files), len(lists.modified_files)) == (2, 11)
    model = RecordingModel()
    await summarize_compaction(prep, model)
    assert sorted(r.max_tokens for r in model.requests) == [8192, 13107]


def test_golden_large_session(tmp_path: Path) -> None:
    case = Case("fixture-large-session", tmp_path)
    _, messages = case.context_messages()
    assert _roles(messages) == {"user": 88, "assistant": 453, "toolResult": 373}
    estimate = TokenCounter().estimate(case.store.context())
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens) == (177657, 177657, 0)
    assert _message_entry_sum(case.path) == 124_661
    prep = prepare_compaction(case.path, CompactionSettings())
    assert prep is not None
    assert (prep.cut.first_kept_index, prep.cut.turn_start_index, prep.is_split_turn) == (
        837,
        834,
        True,
    )
    assert case.path[837].role == "assistant"
    assert (len(prep.messages_to_summarize), len(prep.turn_prefix_messages)) == (730, 3)
    assert prep.previous_kept_count == 0  # no previous compaction: pi and pi_lsp agree fully
    ops = prep.file_ops
    assert tuple(len(s) for s in (ops.read, ops.written, ops.edited)) == (21, 3, 20)
    lists = prep.file_lists()
    assert (len(lists.read_files), len(lists.modified_files)) == (7, 20)
    text = serialize_messages(prep.messages_to_summarize)
    assert len(_utf16(text)) // 2 == 337_644 and text.count("more characters truncated]") == 20


def test_the_compaction_window_prepares_like_the_full_path(case: Case) -> None:
    """compact() reads only the window after the previous compaction's kept entry."""
    from pi_lsp.compaction import compaction_window

    window = compaction_window(case.store)
    assert [r.id for r in window] == [r.id for r in case.path[len(case.path) - len(window) :]]
    for keep in (200, 2000, 20000):
        settings = CompactionSettings(keep_recent_tokens=keep)
        full = prepare_compaction(case.path, settings)
        short = prepare_compaction(window, settings)
        assert (full is None) == (short is None)
        if full is not None and short is not None:
            assert short.to_plan() == full.to_plan()
            assert short.summarize_ids == full.summarize_ids

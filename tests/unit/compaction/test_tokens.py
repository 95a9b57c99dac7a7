"""Token accounting: pi's chars/4 estimate, usage anchoring, caching, the compaction threshold."""

from __future__ import annotations

from typing import Any

import pytest

from pi_lsp.compaction import (
    CHARS4,
    CompactionSettings,
    TokenCounter,
    calculate_context_tokens,
    estimate_context_tokens,
    should_compact,
)
from pi_lsp.compaction.tokens import assistant_usage
from pi_lsp.devtools.builders import assistant, call, tool_result, user
from tests.unit.compaction.helpers import add_turn, memory_store

IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def test_user_text_counts_utf16_units_and_images() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "a😀b"}, IMAGE]}
    assert CHARS4(message) == 1201  # ceil((4 UTF-16 units + 4800 per image) / 4); pi 1.6.0
    assert CHARS4({"role": "user", "content": "x" * 9}) == 3
    assert CHARS4({"role": "user", "content": "😀😀😀"}) == 2  # 6 units, not 3 code points


def test_assistant_counts_text_thinking_and_tool_calls_as_javascript_json() -> None:
    message = assistant("", calls=[call("read", path="a.ts", limit=1.0, offset=1e-7)])
    message["content"].insert(0, {"type": "thinking", "thinking": "hmm"})
    js_json = '{"path":"a.ts","limit":1,"offset":1e-7}'  # what JSON.stringify writes
    assert CHARS4(message) == -(-(len("read") + len(js_json) + len("hmm")) // 4) == 12


def test_tool_results_and_custom_messages_charge_4800_characters_per_image() -> None:
    result = tool_result("1234")
    result["content"].append(IMAGE)
    assert CHARS4(result) == (4 + 4800 + 3) // 4
    custom = {"role": "custom", "customType": "x", "content": [IMAGE, IMAGE], "display": True}
    assert CHARS4(custom) == 2400
    assert CHARS4({"role": "custom", "content": "12345"}) == 2


def test_bash_and_summaries() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 0}
    assert CHARS4(bash) == 2
    assert CHARS4({"role": "compactionSummary", "summary": "x" * 8, "tokensBefore": 1}) == 2
    assert CHARS4({"role": "branchSummary", "summary": "", "fromId": "root"}) == 0
    assert CHARS4({"role": "somethingNew"}) == 0


def test_context_tokens_prefer_total_then_the_sum() -> None:
    assert calculate_context_tokens({"totalTokens": 42, "input": 1}) == 42
    usage = {"totalTokens": 0, "input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4}
    assert calculate_context_tokens(usage) == 10
    assert calculate_context_tokens({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}) == 0


@pytest.mark.parametrize("stop", ["aborted", "error"])
def test_aborted_and_error_replies_have_no_usable_usage(stop: str) -> None:
    assert assistant_usage(assistant(stop=stop)) is None
    assert assistant_usage(assistant()) is not None


def test_estimate_anchors_on_the_last_usable_usage() -> None:
    messages: list[dict[str, Any]] = [
        user("x" * 40),
        assistant("y" * 4, total=1000),
        user("z" * 8),
        assistant("w" * 400, stop="aborted", total=9999),
    ]
    estimate = estimate_context_tokens(messages)
    assert estimate.model_dump(by_alias=True) == {
        "tokens": 1000 + 2 + 100,
        "usageTokens": 1000,
        "trailingTokens": 102,
        "lastUsageIndex": 1,
    }


def test_estimate_without_usage_sums_every_message() -> None:
    estimate = estimate_context_tokens([user("x" * 40), user("y" * 4)])
    assert (estimate.tokens, estimate.usage_tokens, estimate.last_usage_index) == (11, 0, None)


class CountingEstimator:
    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, message: dict[str, Any]) -> int:
        self.calls += 1
        return CHARS4(message)


def test_one_more_entry_costs_one_count() -> None:
    store = memory_store()
    for n in range(50):
        store.append_message(user(f"question {n} " + "x" * 30))  # no usage anywhere: all counted
    estimator = CountingEstimator()
    counter = TokenCounter(estimator)
    before = counter.estimate(store.context())
    assert estimator.calls == 50
    store.append_message(user("one more"))
    after = counter.estimate(store.context())
    assert estimator.calls == 51
    assert after.tokens == before.tokens + CHARS4(user("one more"))


def test_cached_counts_match_uncached_estimates() -> None:
    store = memory_store()
    for n in range(5):
        add_turn(store, f"task {n}", words=n * 7)
    store.append_message(user("follow-up question"))
    context = store.context()
    assert TokenCounter().estimate(context) == estimate_context_tokens(context.messages)


def test_should_compact_threshold_and_switch() -> None:
    settings = CompactionSettings(reserve_tokens=10000)
    assert should_compact(95000, 100000, settings)
    assert not should_compact(89000, 100000, settings)
    assert not should_compact(90000, 100000, settings)  # strictly above window - reserve
    assert not should_compact(95000, 100000, settings.model_copy(update={"enabled": False}))

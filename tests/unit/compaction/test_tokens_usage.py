"""Context usage report: tokens and percent, unknown right after a compaction (pi's rule)."""

from __future__ import annotations

from typing import Any

from pi_lsp.compaction import TokenCounter, context_usage, usage_known
from pi_lsp.devtools.builders import assistant, user
from tests.unit.compaction.helpers import memory_store


def zero_usage(text: str) -> dict[str, Any]:
    message = assistant(text)
    message["usage"] = {**message["usage"], "input": 0, "output": 0, "totalTokens": 0}
    return message


def test_usage_is_the_anchored_estimate_and_its_percent() -> None:
    store = memory_store()
    store.append_message(user("hello"))
    store.append_message(assistant("hi", total=1000))
    store.append_message(user("x" * 400))
    usage = context_usage(store, TokenCounter(), 10_000)
    assert usage is not None
    assert usage.model_dump(by_alias=True) == {
        "tokens": 1100,
        "contextWindow": 10_000,
        "percent": 11.0,
    }


def test_no_window_no_report() -> None:
    assert context_usage(memory_store(), TokenCounter(), 0) is None


def test_unknown_after_a_compaction_until_a_new_usage_arrives() -> None:
    store = memory_store()
    first = store.append_message(user("hello"))
    store.append_message(assistant("hi", total=90_000))
    store.append_compaction("S", first, 90_000)
    assert not usage_known(store)
    store.append_message(user("next"))
    store.append_message(assistant("aborted", stop="aborted", total=500))
    usage = context_usage(store, TokenCounter(), 100_000)
    assert usage is not None and usage.tokens is None and usage.percent is None
    store.append_message(zero_usage("zero"))
    assert not usage_known(store)  # a zero usage does not count
    store.append_message(assistant("fresh", total=2_000))
    usage = context_usage(store, TokenCounter(), 100_000)
    assert usage is not None and usage.tokens == 2_000 and usage.percent == 2.0


def test_known_without_any_compaction_even_with_zero_usage() -> None:
    store = memory_store()
    store.append_message(user("hello"))
    store.append_message(zero_usage("hi"))
    assert usage_known(store)
    usage_at_root = usage_known(store, store.branch_path()[0].id)
    assert usage_at_root

"""Summary requests through the model interface: shapes, budgets, reasoning, concurrency."""

from __future__ import annotations

import asyncio

import pytest

from pi_lsp.compaction import (
    CompactionSettings,
    SummarizationError,
    SummaryRequest,
    plan_compaction,
)
from pi_lsp.compaction.summarize import (
    INITIAL_INSTRUCTIONS,
    SYSTEM_PROMPT,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    summarize_compaction,
)
from pi_lsp.devtools.builders import assistant, call, tool_result, user
from pi_lsp.session import SessionStore
from tests.unit.compaction.helpers import RecordingModel, memory_store

HUNDRED = "x" * 400


def session(*, split: bool = False, compacted: bool = False) -> SessionStore:
    store = memory_store()
    first = store.append_message(user("first task " + HUNDRED))
    store.append_message(assistant("did it " + HUNDRED, calls=[call("read", path="src/a.py")]))
    if compacted:
        store.append_compaction(
            "EARLIER SUMMARY",
            first,
            500,
            details={"readFiles": ["r.py"], "modifiedFiles": []},
            from_hook=False,
        )
    store.append_message(user("second task " + HUNDRED))
    store.append_message(
        assistant("did that " + HUNDRED, calls=[call("write", path="out.md", content="x")])
    )
    store.append_message(user("third task" + (" big" if split else "")))
    for n in range(3 if split else 1):
        store.append_message(assistant("", calls=[call("edit", f"e{n}", path="src/b.py")]))
        store.append_message(tool_result(HUNDRED, f"e{n}"))
    store.append_message(assistant("all done " + HUNDRED))
    if not split:
        store.append_message(user("a new question " + HUNDRED))  # keep=100 cuts right here
    return store


def settings(keep: int, reserve: int = 16384) -> CompactionSettings:
    return CompactionSettings(keep_recent_tokens=keep, reserve_tokens=reserve)


async def test_initial_request_shape_and_budget() -> None:
    store = session()
    prep = plan_compaction(store.branch_path(), settings(keep=100, reserve=20000))
    model = RecordingModel()
    summary, details = await summarize_compaction(prep, model)
    [request] = model.requests
    assert request.system == SYSTEM_PROMPT
    assert request.max_tokens == 16000  # floor(0.8 × reserve)
    assert request.reasoning is None
    assert request.prompt.startswith("<conversation>\n[User]: first task")
    assert (
        request.prompt[request.prompt.index("\n</conversation>") :]
        == "\n</conversation>\n\n" + INITIAL_INSTRUCTIONS
    )
    assert "<previous-summary>" not in request.prompt
    assert (
        summary
        == "SUMMARY 1\n\n<read-files>\nsrc/a.py\n</read-files>\n\n<modified-files>\nout.md\nsrc/b.py\n</modified-files>"
    )
    assert details.model_dump(by_alias=True) == {
        "readFiles": ["src/a.py"],
        "modifiedFiles": ["out.md", "src/b.py"],
    }


async def test_update_request_carries_the_previous_summary_and_its_files() -> None:
    store = session(compacted=True)
    prep = plan_compaction(store.branch_path(), settings(keep=100))
    model = RecordingModel()
    _summary, details = await summarize_compaction(prep, model)
    [request] = model.requests
    tail = "\n</conversation>\n\n<previous-summary>\nEARLIER SUMMARY\n</previous-summary>\n\n"
    assert tail + UPDATE_INSTRUCTIONS in request.prompt
    assert "r.py" in details.read_files  # carried over from the earlier compaction's details


async def test_focus_instructions_are_appended() -> None:
    prep = plan_compaction(session().branch_path(), settings(keep=100))
    model = RecordingModel()
    await summarize_compaction(prep, model, focus="the database migration")
    assert model.requests[0].prompt.endswith(
        INITIAL_INSTRUCTIONS + "\n\nAdditional focus: the database migration"
    )


async def test_reasoning_high_only_for_reasoning_models() -> None:
    prep = plan_compaction(session(split=True).branch_path(), settings(keep=150))
    assert prep.is_split_turn
    model = RecordingModel(supports_reasoning=True)
    await summarize_compaction(prep, model)
    by_kind = {TURN_PREFIX_INSTRUCTIONS in r.prompt: r for r in model.requests}
    assert by_kind[False].reasoning == "high"  # history summary
    assert by_kind[True].reasoning is None  # turn prefix: never


async def test_split_turn_requests_run_concurrently_and_merge() -> None:
    prep = plan_compaction(session(split=True).branch_path(), settings(keep=150, reserve=10000))
    gate = asyncio.Event()

    def answer(request: SummaryRequest) -> str:
        return "PREFIX" if TURN_PREFIX_INSTRUCTIONS in request.prompt else "HISTORY"

    model = RecordingModel(answer=answer, gate=gate)
    task = asyncio.create_task(summarize_compaction(prep, model))
    while len(model.requests) < 2:
        await asyncio.sleep(0)
    assert model.in_flight == 2  # both calls are waiting at the same time
    gate.set()
    summary, _ = await task
    assert summary.startswith(
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<read-files>"
    )
    budgets = sorted(r.max_tokens for r in model.requests)
    assert budgets == [5000, 8000]  # 0.5 × and 0.8 × reserve
    prefix = next(r for r in model.requests if TURN_PREFIX_INSTRUCTIONS in r.prompt)
    assert prefix.prompt.startswith("<conversation>\n[User]: third task big")
    assert prefix.prompt.endswith("\n</conversation>\n\n" + TURN_PREFIX_INSTRUCTIONS)


async def test_split_turn_without_history_says_no_prior_history() -> None:
    store = memory_store()
    store.append_message(user("one huge task"))
    for n in range(4):
        store.append_message(assistant("", calls=[call("read", f"c{n}", path=f"f{n}")]))
        store.append_message(tool_result(HUNDRED, f"c{n}"))
    prep = plan_compaction(store.branch_path(), settings(keep=150))
    assert prep.messages_to_summarize == [] and prep.is_split_turn
    model = RecordingModel(answer=lambda r: "PREFIX")
    summary, _ = await summarize_compaction(prep, model)
    assert len(model.requests) == 1
    assert summary.startswith(
        "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"
    )


async def test_a_failed_call_raises_and_cancels_its_sibling() -> None:
    prep = plan_compaction(session(split=True).branch_path(), settings(keep=150))
    gate = asyncio.Event()
    cancelled = []

    class Failing(RecordingModel):
        async def complete(
            self, *, system: str, prompt: str, max_tokens: int, reasoning: str | None
        ) -> str:
            if TURN_PREFIX_INSTRUCTIONS in prompt:
                await asyncio.sleep(0)
                raise RuntimeError("rate limited")
            try:
                await gate.wait()
            except asyncio.CancelledError:
                cancelled.append(True)
                raise
            return "never"

    with pytest.raises(
        SummarizationError, match=r"^Turn prefix summarization failed: rate limited$"
    ):
        await summarize_compaction(prep, Failing())
    assert cancelled == [True]


async def test_history_failure_message_is_pis() -> None:
    prep = plan_compaction(session().branch_path(), settings(keep=100))

    def fail(request: SummaryRequest) -> str:
        raise ConnectionError("connection refused")

    with pytest.raises(SummarizationError, match=r"^Summarization failed: connection refused$"):
        await summarize_compaction(prep, RecordingModel(answer=fail))


async def test_a_failure_without_text_is_named_by_its_type() -> None:
    prep = plan_compaction(session().branch_path(), settings(keep=100))

    def fail(request: SummaryRequest) -> str:
        raise TimeoutError()

    with pytest.raises(SummarizationError, match=r"^Summarization failed: TimeoutError$"):
        await summarize_compaction(prep, RecordingModel(answer=fail))

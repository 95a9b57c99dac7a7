"""compact(): the appended entry, failure and cancellation safety, three compactions in a row."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from pi_lsp.compaction import (
    AlreadyCompactedError,
    CompactionSettings,
    NothingToCompactError,
    SessionChangedError,
    SummarizationError,
    SummaryRequest,
    compact,
)
from pi_lsp.compaction.summarize import TURN_PREFIX_INSTRUCTIONS
from pi_lsp.devtools.builders import (
    assistant,
    call,
    fresh_store,
    tool_result,
    user,
)
from pi_lsp.session import SessionStore
from tests.unit.compaction.helpers import (
    RecordingModel,
    add_turn,
    entry_keys,
    memory_store,
    written_line,
)

KEEP = CompactionSettings(keep_recent_tokens=60)


def file_store(tmp_path: Path, turns: int = 6) -> SessionStore:
    store = fresh_store("/work/project", tmp_path)
    for n in range(turns):
        add_turn(store, f"task {n}", f"done {n}", words=20)
    return store


async def test_compaction_entry_has_pis_fields(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    leaf = store.leaf_id
    result = await compact(store, RecordingModel(), KEEP)
    last = written_line(store)
    keys = entry_keys("summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook")
    assert list(last) == keys
    assert last["parentId"] == leaf and last["fromHook"] is False
    assert last["details"] == {"readFiles": [], "modifiedFiles": []}
    assert result.model_dump(by_alias=True) == {
        k: last[k] for k in ("summary", "firstKeptEntryId", "tokensBefore", "details")
    }
    context = store.context()
    assert context.messages[0]["role"] == "compactionSummary"
    assert context.entry_ids[1] == result.first_kept_entry_id


async def test_focus_reaches_the_request(tmp_path: Path) -> None:
    model = RecordingModel()
    await compact(file_store(tmp_path), model, KEEP, "error handling")
    assert model.requests[-1].prompt.endswith("Additional focus: error handling")


async def test_cancellation_leaves_the_session_untouched(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    assert store.path is not None
    before, leaf, count = store.path.read_bytes(), store.leaf_id, store.entry_count
    model = RecordingModel(gate=asyncio.Event())
    task = asyncio.create_task(compact(store, model, KEEP))
    while not model.requests:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.path.read_bytes() == before
    assert (store.leaf_id, store.entry_count) == (leaf, count)


async def test_a_model_failure_leaves_the_session_untouched(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()

    def fail(request: SummaryRequest) -> str:
        raise TimeoutError("timed out")

    with pytest.raises(SummarizationError, match="Summarization failed: timed out"):
        await compact(store, RecordingModel(answer=fail), KEEP)
    assert store.path.read_bytes() == before


async def test_entries_appended_meanwhile_abort_the_compaction(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    gate = asyncio.Event()
    task = asyncio.create_task(compact(store, RecordingModel(gate=gate), KEEP))
    await asyncio.sleep(0)
    store.append_message(user("typed while compacting"))
    count = store.entry_count
    gate.set()
    with pytest.raises(SessionChangedError):
        await task
    assert store.entry_count == count


async def test_nothing_to_compact_and_already_compacted_never_call_the_model() -> None:
    store = memory_store()
    add_turn(store, "hi")
    model = RecordingModel()
    with pytest.raises(NothingToCompactError):
        await compact(store, model)
    for n in range(6):
        add_turn(store, f"task {n}", words=20)
    await compact(store, model, KEEP)
    calls = len(model.requests)
    with pytest.raises(AlreadyCompactedError):
        await compact(store, model, KEEP)
    assert len(model.requests) == calls


FILES = ["src/app.py", "src/db.py", "README.md", "tests/test_app.py", "src/util.py"]


def long_session(store: SessionStore, start: int, count: int) -> None:
    """Turns U<n>: a question, a read and an edit with results, an answer."""
    for n in range(start, start + count):
        store.append_message(user(f"U{n} please look at things " + "word " * 10))
        read, edit = FILES[n % len(FILES)], FILES[(n + 2) % len(FILES)]
        reply = assistant(
            "",
            calls=[
                call("read", f"r{n}", path=read),
                call("edit", f"e{n}", path=edit, oldText="a", newText="b"),
            ],
        )
        store.append_message(reply)
        store.append_message(tool_result("contents " * 8, f"r{n}"))
        store.append_message(tool_result("edited", f"e{n}", "edit"))
        store.append_message(assistant(f"answer {n} " + "detail " * 8))


def users_in(text: str) -> set[str]:
    return set(re.findall(r"\bU\d+\b", text))


async def test_three_compactions_lose_no_user_message_and_accumulate_files() -> None:
    store = memory_store()
    model = RecordingModel(answer=lambda r: "SUMMARY")
    summarized: set[str] = set()
    all_users: set[str] = set()
    previous_files: set[str] = set()
    kept_by_first: set[str] = set()
    for round_ in range(3):
        long_session(store, round_ * 12, 12)
        all_users |= {f"U{n}" for n in range(round_ * 12, round_ * 12 + 12)}
        seen = len(model.requests)
        result = await compact(store, model, CompactionSettings(keep_recent_tokens=250))
        for request in model.requests[seen:]:
            conversation = request.prompt.split("</conversation>")[0]
            summarized |= users_in(conversation)
        verbatim = {
            users_in(m["content"][0]["text"]).pop()
            for m in store.context().messages
            if m["role"] == "user"
        }
        assert all_users <= verbatim | summarized, (
            f"round {round_}: lost {all_users - verbatim - summarized}"
        )
        files = set(result.details.read_files) | set(result.details.modified_files)
        assert previous_files <= files  # lists only grow
        previous_files = files
        if round_ == 0:
            kept_by_first = verbatim
            assert kept_by_first  # the first compaction kept some turns verbatim
        if round_ == 1:  # D2: what the first compaction kept went into the second request
            assert kept_by_first <= summarized
            assert any(
                TURN_PREFIX_INSTRUCTIONS not in r.prompt and users_in(r.prompt) & kept_by_first
                for r in model.requests[seen:]
            )
    assert previous_files == set(FILES)
    assert len([r for r in store.records if r.type == "compaction"]) == 3

"""The turn loop against a scripted model: pi's event order, tools, queues, abort."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent import MessageQueue
from pi_lsp.agent.loop import SKIPPED, LoopHooks, run_loop
from pi_lsp.devtools.builders import user
from pi_lsp.literals import QueueMode
from pi_lsp.tools import create_tools
from tests.deadlines import HANG
from tests.unit.agent.scripted import Reply, Script, SleepTool, kinds, recorder, tool_map


def hooks(
    script: Script,
    tools: Any,
    emit: Any,
    steering: list[dict[str, Any]] | None = None,
    follow_up: list[dict[str, Any]] | None = None,
) -> LoopHooks:
    steer_queue = steering if steering is not None else []
    follow_queue = follow_up if follow_up is not None else []

    def take(queue: list[dict[str, Any]]) -> list[dict[str, Any]]:
        taken = queue[:1]
        del queue[:1]
        return taken

    return LoopHooks(
        stream=script,
        tools=tools,
        emit=emit,
        steering=lambda: take(steer_queue),
        follow_up=lambda: take(follow_queue),
    )


def naps(*naps: tuple[str, float], text: str = "", then: str) -> Script:
    """A reply calling ``sleep`` for each ``(label, seconds)``, then a text reply."""
    calls = [("sleep", {"seconds": seconds, "label": label}) for label, seconds in naps]
    return Script(Reply(text, calls=calls), Reply(then))


async def test_text_reply_event_order() -> None:
    events, emit = recorder()
    messages: list[dict[str, Any]] = []
    added = await run_loop(
        messages, [user("hi")], hooks(Script(Reply("hello")), {}, emit), asyncio.Event()
    )
    assert kinds(events) == [
        "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:assistant", "message_update", "message_update", "message_end:assistant",
        "turn_end", "agent_end",
    ]  # fmt: skip
    assert [m["role"] for m in added] == ["user", "assistant"] and messages == added
    assert added[1]["content"][0]["text"] == "hello"
    assert events[-1]["messages"] == added


async def test_parallel_tools_results_in_call_order_then_next_turn(tmp_path: Path) -> None:
    SleepTool.finished.clear()
    script = naps(("slow", 0.2), ("fast", 0.01), text="working", then="done")
    events, emit = recorder()
    messages: list[dict[str, Any]] = []
    await run_loop(
        messages,
        [user("go")],
        hooks(script, tool_map(SleepTool(str(tmp_path))), emit),
        asyncio.Event(),
    )
    assert SleepTool.finished == ["fast", "slow"]  # they ran concurrently
    sequence = kinds(events)
    starts = [i for i, k in enumerate(sequence) if k == "tool_execution_start"]
    ends = [i for i, k in enumerate(sequence) if k == "tool_execution_end"]
    assert len(starts) == 2 and max(starts) < min(ends)  # all announced before any finished
    results = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "toolResult"
    ]
    assert [r["toolCallId"] for r in results] == ["call_1_0", "call_1_1"]
    assert [r["content"][0]["text"] for r in results] == ["slept slow", "slept fast"]
    assert sequence.count("turn_start") == 2 and sequence.count("tool_execution_update") == 2
    assert [m["role"] for m in script.seen[1]] == ["user", "assistant", "toolResult", "toolResult"]


async def test_bad_calls_become_error_results_and_the_loop_continues(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path))
    script = Script(
        Reply(
            calls=[
                ("nope", {}),
                ("read", {"wrong": 1}),
                ("read", "{not json"),
                ("write", {"path": "a.txt", "content": "x"}),
            ]
        ),
        Reply("recovered"),
    )
    _events, emit = recorder()
    messages: list[dict[str, Any]] = []
    await run_loop(messages, [user("go")], hooks(script, tools, emit), asyncio.Event())
    results = [m for m in messages if m["role"] == "toolResult"]
    texts = [r["content"][0]["text"] for r in results]
    assert texts[0] == "Tool nope not found"
    assert texts[1].startswith('Validation failed for tool "read"')
    assert texts[2].startswith('Invalid arguments for tool "read"')
    assert texts[3].startswith("Successfully wrote 1 bytes to a.txt")
    assert [r["isError"] for r in results] == [True, True, True, False]
    assert results[0]["details"] == {}
    assert (tmp_path / "a.txt").read_text() == "x"
    assert messages[-1]["content"][0]["text"] == "recovered"


async def test_steering_skips_the_remaining_tool_calls(tmp_path: Path) -> None:
    script = naps(("a", 0.01), ("b", 3600), then="ok, switching")  # b must be skipped
    events, emit = recorder()
    steering: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    task = asyncio.ensure_future(
        run_loop(
            messages,
            [user("go")],
            hooks(script, tool_map(SleepTool(str(tmp_path))), emit, steering),
            asyncio.Event(),
        )
    )
    while not any(e["type"] == "tool_execution_start" for e in events):
        await asyncio.sleep(0.001)
    steering.append(user("stop that, do X"))
    await asyncio.wait_for(task, HANG)
    results = [m for m in messages if m["role"] == "toolResult"]
    assert [r["content"][0]["text"] for r in results] == ["slept a", SKIPPED]
    assert [m["role"] for m in script.seen[1]][
        -1
    ] == "user"  # steering injected before the next call
    assert script.seen[1][-1]["content"][0]["text"] == "stop that, do X"


async def test_follow_up_runs_only_when_the_agent_would_stop() -> None:
    script = Script(Reply("first"), Reply("second"))
    events, emit = recorder()
    follow = [user("and then?")]
    messages: list[dict[str, Any]] = []
    await run_loop(
        messages, [user("go")], hooks(script, {}, emit, follow_up=follow), asyncio.Event()
    )
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert kinds(events).count("agent_end") == 1 and kinds(events).count("turn_start") == 2


@pytest.mark.parametrize(
    ("mode", "roles", "calls"),
    [
        ("one-at-a-time", ["user", "assistant"] * 3, 3),
        ("all", ["user", "assistant", "user", "user", "assistant"], 2),
    ],
)
async def test_follow_up_queue_modes(mode: QueueMode, roles: list[str], calls: int) -> None:
    script = Script(Reply("first"), Reply("second"), Reply("third"))
    _events, emit = recorder()
    queue = MessageQueue(mode)
    queue.push(user("one more"))
    queue.push(user("and another"))
    loop_hooks = dataclasses.replace(hooks(script, {}, emit), follow_up=queue.take)
    messages: list[dict[str, Any]] = []
    await run_loop(messages, [user("go")], loop_hooks, asyncio.Event())
    assert [m["role"] for m in messages] == roles
    assert len(script.seen) == calls and len(queue) == 0
    texts = [m["content"][0]["text"] for m in messages if m["role"] == "user"]
    assert texts == ["go", "one more", "and another"]


async def test_abort_while_streaming_stores_an_aborted_reply() -> None:
    script = Script(Reply("partial text", hang=True))
    events, emit = recorder()
    abort = asyncio.Event()
    messages: list[dict[str, Any]] = []
    task = asyncio.ensure_future(run_loop(messages, [user("go")], hooks(script, {}, emit), abort))
    while not any(e["type"] == "message_update" for e in events):
        await asyncio.sleep(0.001)
    abort.set()
    added = await asyncio.wait_for(task, HANG)  # the reply hangs: only the abort ends it
    assert (
        added[-1]["stopReason"] == "aborted" and added[-1]["content"][0]["text"] == "partial text"
    )
    assert kinds(events)[-3:] == ["message_end:assistant", "turn_end", "agent_end"]


async def test_abort_during_tools_answers_every_call_and_ends(tmp_path: Path) -> None:
    tools = {**tool_map(SleepTool(str(tmp_path))), **create_tools(str(tmp_path))}
    script = Script(
        Reply(
            calls=[("sleep", {"seconds": 3600, "label": "x"}), ("bash", {"command": "sleep 3600"})]
        )
    )
    events, emit = recorder()
    abort = asyncio.Event()
    messages: list[dict[str, Any]] = []
    task = asyncio.ensure_future(
        run_loop(messages, [user("go")], hooks(script, tools, emit), abort)
    )
    while kinds(events).count("tool_execution_start") < 2:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.2)
    abort.set()
    await asyncio.wait_for(task, HANG)  # the tools would take an hour: only the abort ends them
    calls = [b["id"] for b in messages[1]["content"] if b["type"] == "toolCall"]
    results = [m for m in messages if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == calls
    assert all(r["isError"] for r in results)
    assert "Command aborted" in results[1]["content"][0]["text"]
    assert kinds(events)[-2:] == ["turn_end", "agent_end"]
    assert len(script.seen) == 1  # no further model call after an abort


async def test_error_reply_ends_the_run_and_length_stop_fails_tool_calls(tmp_path: Path) -> None:
    events, emit = recorder()
    messages: list[dict[str, Any]] = []
    added = await run_loop(
        messages,
        [user("go")],
        hooks(Script(Reply(error="500 server error")), {}, emit),
        asyncio.Event(),
    )
    assert added[-1]["stopReason"] == "error" and kinds(events)[-2:] == ["turn_end", "agent_end"]
    script = Script(
        Reply(calls=[("write", {"path": "b.txt", "content": "y"})], stop="length"), Reply("again")
    )
    messages = []
    await run_loop(
        messages, [user("go")], hooks(script, create_tools(str(tmp_path)), emit), asyncio.Event()
    )
    assert not (tmp_path / "b.txt").exists()
    assert "output token limit" in messages[2]["content"][0]["text"]

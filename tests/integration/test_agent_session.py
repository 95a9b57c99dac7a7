"""Agent turns end to end: real litellm against the scripted local server, a real session file."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pi_lsp.agent import AgentBusyError, AgentOptions
from pi_lsp.agent.agent_session import AgentSession, create_agent_session
from pi_lsp.devtools.builders import fake_settings, tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, ScriptError, ScriptToolCall, ScriptUsage, Turn
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import session_line
from pi_lsp.settings import Settings
from tests.deadlines import HANG

SUMMARY = "## Goal\nFix calc.py\n\n## Progress\n### Done\n- [x] read calc.py"


def summary_responder(body: dict[str, Any]) -> Turn | None:
    """Answer compaction requests (they carry a <conversation> block) with a fixed summary."""
    text = json.dumps(body.get("messages", []))
    return Turn(text=SUMMARY) if "<conversation>" in text else None


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return abs(a) + b\n")
    yield root


def settings_for(fake: FakeOpenAI, **extra: Any) -> Settings:
    return Settings.model_validate(fake_settings(fake.base_url, **extra))


async def make_agent(
    project: Path, fake: FakeOpenAI, **extra: Any
) -> tuple[AgentSession, list[dict[str, Any]]]:
    store = SessionStore.create(str(project))
    agent = await create_agent_session(
        store, str(project), settings_for(fake, **extra), AgentOptions(model="openai/fake-model")
    )
    events: list[dict[str, Any]] = []
    agent.subscribe(events.append)
    return agent, events


def file_lines(agent: AgentSession) -> list[dict[str, Any]]:
    assert agent.store.path is not None
    return [json.loads(line) for line in agent.store.path.read_text().splitlines()]


async def test_multi_turn_session_reads_edits_and_persists_each_message(project: Path) -> None:
    script = [
        tool_turn("read", {"path": "calc.py"}, text="Reading."),
        tool_turn("edit", {"path": "calc.py", "oldText": "abs(a) + b", "newText": "a + b"}),
        Turn(text="Fixed."),
        Turn(text="You're welcome."),
    ]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake)
        persisted: list[int] = []
        agent.subscribe(
            lambda e: (
                persisted.append(len(file_lines(agent)))
                if e["type"] == "message_end" and agent.store.persisted
                else None
            )
        )
        await agent.prompt("fix add")
        await agent.prompt("thanks")
        bodies = fake.bodies
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    lines = file_lines(agent)
    assert [line["type"] for line in lines[:3]] == [
        "session",
        "model_change",
        "thinking_level_change",
    ]
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    assert roles == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    for line in lines:
        session_line().validate_python(line)  # only constructs pi's reader accepts
    assert persisted == sorted(persisted) and persisted[-1] == len(
        lines
    )  # one line per message end
    # what was sent for the last request is exactly the stored context
    sent = bodies[-1]["messages"]
    assert [m["role"] for m in sent] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    reopened = SessionStore.open(agent.store.path or "")
    assert reopened.context().to_json() == agent.store.context().to_json()
    ends = [e for e in events if e["type"] == "message_end"]
    assert all(agent.store.get(e["entryId"]) is not None for e in ends)
    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "schemas" / "agent-event.schema.json").read_text()
    )
    validator = jsonschema.Draft202012Validator(schema)
    invalid = [e["type"] for e in json.loads(json.dumps(events)) if not validator.is_valid(e)]
    assert invalid == [] and len(events) > 20


async def test_transient_errors_are_retried_and_omitted_by_context_edits(project: Path) -> None:
    script = [
        Turn(error=ScriptError(status=429)),
        Turn(error=ScriptError(status=500)),
        Turn(text="finally"),
    ]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake)
        await agent.prompt("hello")
    kinds = [e["type"] for e in events if e["type"].startswith("auto_retry")]
    assert kinds == ["auto_retry_start", "auto_retry_start", "auto_retry_end"]
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [(s["attempt"], s["delayMs"]) for s in starts] == [(1, 10), (2, 20)]
    assert events[-1] == {"type": "auto_retry_end", "success": True, "attempt": 2} or any(
        e.get("success") is True for e in events if e["type"] == "auto_retry_end"
    )
    context = agent.store.context()
    assert [m["role"] for m in context.messages] == ["user", "assistant"]
    assert context.messages[-1]["stopReason"] == "stop"
    errors = [
        r
        for r in agent.store.records
        if r.role == "assistant" and r.value["message"]["stopReason"] == "error"
    ]
    # pi 1.6.0: kept in the file and on the path, omitted from the context by context edits
    assert len(errors) == 2
    path = agent.store.branch_path()
    kinds = [r.type for r in path if r.type in ("message", "context_edit")]
    assert kinds == ["message", "message", "context_edit", "message", "context_edit", "message"]
    edits = [r.value for r in path if r.type == "context_edit"]
    assert [(e["targetId"], e["replacement"]) for e in edits] == [(r.id, None) for r in errors]


async def test_retries_give_up_after_max_and_auth_errors_are_not_retried(project: Path) -> None:
    with FakeOpenAI([Turn(error=ScriptError(status=503))] * 5) as fake:
        agent, events = await make_agent(project, fake, retry={"baseDelayMs": 1, "maxRetries": 2})
        await agent.prompt("hello")
        assert len(fake.requests) == 3
    final = [e for e in events if e["type"] == "auto_retry_end"]
    assert final and final[-1]["success"] is False and "503" in final[-1]["finalError"]
    with FakeOpenAI([Turn(error=ScriptError(status=401))]) as fake:
        agent, events = await make_agent(project, fake)
        await agent.prompt("hello")
        assert len(fake.requests) == 1
    last = agent.store.context().messages[-1]
    assert last["stopReason"] == "error" and "OPENAI_API_KEY" in last["errorMessage"]
    assert not [e for e in events if e["type"].startswith("auto_retry")]


async def test_abort_cancels_the_wait_before_a_retry(project: Path) -> None:
    script = [Turn(error=ScriptError(status=503)), Turn(text="never sent")]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake, retry={"baseDelayMs": 600_000})
        task = asyncio.ensure_future(agent.prompt("hello"))
        while not any(e["type"] == "auto_retry_start" for e in events):
            await asyncio.sleep(0.01)
        await agent.abort()
        await asyncio.wait_for(task, HANG)  # not the ten minutes of the retry delay
        assert len(fake.requests) == 1
    (end,) = [e for e in events if e["type"] == "auto_retry_end"]
    assert end == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 1,
        "finalError": "Retry cancelled",
    }
    assert not agent.is_streaming


async def test_context_overflow_compacts_once_and_retries(project: Path) -> None:
    turns = [Turn(text=f"answer {i}", usage=ScriptUsage(prompt_tokens=1000)) for i in range(4)]
    script = Script(
        turns=[*turns, Turn(error=ScriptError.context_overflow()), Turn(text="after compaction")]
    )
    with FakeOpenAI(script, responder=summary_responder) as fake:
        agent, events = await make_agent(project, fake, compaction={"keepRecentTokens": 10})
        for i in range(4):
            await agent.prompt(f"question {i} " + "x" * 400)
        await agent.prompt("one more")
    kinds = [e["type"] for e in events if e["type"].startswith("auto_compaction")]
    assert kinds == ["auto_compaction_start", "auto_compaction_end"]
    end = next(e for e in events if e["type"] == "auto_compaction_end")
    assert end["willRetry"] is True and end["result"]["summary"].startswith("## Goal")
    context = agent.store.context().messages
    assert context[0]["role"] == "compactionSummary"
    assert context[-1]["content"][0]["text"] == "after compaction"
    assert not any(m.get("stopReason") == "error" for m in context)


async def test_a_length_stop_is_omitted_compacted_and_retried_like_pi16(project: Path) -> None:
    turns = [Turn(text=f"answer {i}", usage=ScriptUsage(prompt_tokens=1000)) for i in range(4)]
    cut = Turn(text="partial repl", finish_reason="length", usage=ScriptUsage(completion_tokens=5))
    script = Script(turns=[*turns, cut, Turn(text="after compaction")])
    with FakeOpenAI(script, responder=summary_responder) as fake:
        agent, events = await make_agent(project, fake, compaction={"keepRecentTokens": 10})
        for i in range(4):
            await agent.prompt(f"question {i} " + "x" * 400)
        await agent.prompt("one more")
    end = next(e for e in events if e["type"] == "auto_compaction_end")
    assert end["willRetry"] is True
    context = agent.store.context().messages
    assert context[-1]["content"][0]["text"] == "after compaction"
    assert not any(m.get("stopReason") == "length" for m in context)
    partial = next(
        r
        for r in agent.store.records
        if r.role == "assistant" and r.value["message"]["stopReason"] == "length"
    )
    edits = [r.value for r in agent.store.records if r.type == "context_edit"]
    assert edits == [{**edits[0], "targetId": partial.id, "replacement": None}]


async def test_threshold_compaction_after_a_turn(project: Path) -> None:
    big = ScriptUsage(prompt_tokens=9_000, completion_tokens=500)
    script = Script(turns=[Turn(text=f"reply {i}", usage=big) for i in range(3)])
    with FakeOpenAI(script, responder=summary_responder) as fake:
        agent, events = await make_agent(
            project,
            fake,
            models={"openai/fake-model": {"contextWindow": 10_000}},
            compaction={"reserveTokens": 2_000, "keepRecentTokens": 50},
        )
        await agent.prompt("first " + "y" * 2000)
        await agent.prompt("second " + "y" * 2000)
    starts = [e for e in events if e["type"] == "auto_compaction_start"]
    assert starts and starts[0]["reason"] == "threshold"
    ends = [e for e in events if e["type"] == "auto_compaction_end"]
    # after the first turn everything is recent: nothing to summarize yet, and it says so
    assert "Nothing to compact" in ends[0]["errorMessage"]
    assert ends[-1]["willRetry"] is False and ends[-1]["result"]["summary"].startswith("## Goal")
    assert agent.store.context().messages[0]["role"] == "compactionSummary"
    usage = agent.context_usage()
    assert usage is not None and usage.tokens is None  # unknown until a new reply reports usage


async def test_abort_mid_stream_stores_the_partial_reply(project: Path) -> None:
    script = [Turn(text="a long answer that never ends", chunk_size=2, hang_after=3)]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake)
        task = asyncio.ensure_future(agent.prompt("go"))
        # Until the second chunk has arrived (the server sends three, then hangs).
        while not any(
            e["type"] == "message_update"
            and e["message"]["content"]
            and e["message"]["content"][0].get("text", "").startswith("a l")
            for e in events
        ):
            await asyncio.sleep(0.01)
        with pytest.raises(AgentBusyError):
            await agent.prompt("second prompt while streaming")
        await agent.abort()
        await task
        assert await asyncio.to_thread(fake.wait_for_disconnects, 1)
    last = agent.store.context().messages[-1]
    assert last["stopReason"] == "aborted" and last["content"][0]["text"].startswith("a l")
    assert file_lines(agent)[-1]["message"]["stopReason"] == "aborted"


async def test_steering_while_tools_run_and_follow_up(project: Path) -> None:
    wait_for_go = f"while [ ! -e {project / 'go'} ]; do sleep 0.02; done"
    script = [
        Turn(
            tool_calls=[
                # the first call ends once the steering is queued (the test creates `go`)
                ScriptToolCall(name="bash", arguments={"command": f"{wait_for_go}; echo one"}),
                ScriptToolCall(name="bash", arguments={"command": "sleep 3600; echo two"}),
            ]
        ),
        Turn(text="steered"),
        Turn(text="followed up"),
    ]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake)
        task = asyncio.ensure_future(agent.prompt("run both"))
        while not any(e["type"] == "tool_execution_start" for e in events):
            await asyncio.sleep(0.01)
        await agent.prompt("use the first result only", streaming_behavior="steer")
        await agent.prompt("and then summarize", streaming_behavior="followUp")
        (project / "go").touch()
        await asyncio.wait_for(task, HANG)
    roles = [
        (m["role"], (m.get("content") or [{}])[0].get("text", ""))
        for m in agent.store.context().messages
    ]
    results = [t for r, t in roles if r == "toolResult"]
    assert results[0].startswith("one") and results[1] == "Skipped due to queued user message."
    users = [t for r, t in roles if r == "user"]
    assert users == ["run both", "use the first result only", "and then summarize"]
    assert roles[-1] == ("assistant", "followed up")


async def test_settings_changed_during_a_turn_apply_from_the_next_turn(project: Path) -> None:
    # The rule (CONTRIBUTING.md, agent_session.py): a run keeps the settings it started with.
    script = [
        Turn(error=ScriptError(status=503)),
        Turn(text="first answer"),
        Turn(error=ScriptError(status=503)),
        Turn(text="never sent"),
    ]
    with FakeOpenAI(script) as fake:
        agent, events = await make_agent(project, fake, retry={"baseDelayMs": 300})
        task = asyncio.ensure_future(agent.prompt("one"))
        while not any(e["type"] == "auto_retry_start" for e in events):
            await asyncio.sleep(0.01)
        agent.use_settings(settings_for(fake, retry={"enabled": False}))
        assert agent.config.settings.retry.enabled  # not yet: the turn is running
        await asyncio.wait_for(task, HANG)
        # The running turn retried under its snapshot and got its answer.
        ends = [e for e in events if e["type"] == "auto_retry_end"]
        assert [e["success"] for e in ends] == [True]
        assert len(fake.requests) == 2
        assert not agent.config.settings.retry.enabled  # applied once the turn ended
        await agent.prompt("two")
        # The next turn runs under the new settings: the error is not retried.
        assert len(fake.requests) == 3
        assert sum(e["type"] == "auto_retry_start" for e in events) == 1
    replies = [m for m in agent.store.context().messages if m.get("role") == "assistant"]
    assert replies[-1]["stopReason"] == "error"


async def test_api_base_and_shell_settings_apply_from_the_next_turn(project: Path) -> None:
    # apiBase and bash's shellCommandPrefix follow the same rule as the other settings: the
    # session need not be reopened for them, and the next turn uses them.
    first = [Turn(text="from the first server")]
    second = [
        tool_turn("bash", {"command": "echo $PI_MARK"}),
        Turn(text="done"),
    ]
    with FakeOpenAI(first) as old, FakeOpenAI(second) as new:
        agent, _ = await make_agent(project, old)
        await agent.prompt("one")
        agent.use_settings(settings_for(new, shellCommandPrefix="export PI_MARK=prefixed"))
        await agent.prompt("two")
        assert len(old.requests) == 1
        assert len(new.requests) == 2
    results = [m for m in agent.store.context().messages if m.get("role") == "toolResult"]
    assert "prefixed" in results[-1]["content"][0]["text"]

"""Agent-turn benchmark (issue 5): per-turn overhead, first-token latency, CLI start-up.

Run: ``.venv/bin/python bench/bench_agent.py`` (or ``make bench``).

1. Per-turn overhead on the 22k-entry session: ``AgentSession.prompt`` with an in-process model
   double that answers instantly (no tools), so what is timed is pi_lsp's own work: context,
   system prompt, persistence of two entries, events, queue and compaction checks.
2. Time to the first streamed token through ``AgentSession.prompt`` vs a bare
   ``litellm.acompletion`` call, both against the local scripted server.
3. ``pi-lsp sessions tree`` start-up (it must not import litellm) vs ``import litellm`` alone.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SESSIONS, plain_copy, report
from pi_lsp.agent import AgentOptions
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Turn
from pi_lsp.session import SessionStore
from pi_lsp.settings import Settings
from tests.unit.agent.scripted import Reply, ScriptedStream

RUNS = 21


class InstantModel:
    """Answers every request at once with a short text reply."""

    def __call__(self, request: Any) -> ScriptedStream:
        return ScriptedStream(Reply("ok, done"), request.abort, 0)


async def per_turn_overhead(path: Path, cwd: str) -> tuple[float, float]:
    """(median ms per prompt on the big session, median ms on a fresh empty session)."""
    settings = Settings.model_validate({"models": {"openai/bench": {"contextWindow": 10_000_000}}})
    results = []
    for store in (SessionStore.open(path), SessionStore.create(cwd)):
        agent = await create_agent_session(
            store, cwd, settings, AgentOptions(model="openai/bench", stream=InstantModel())
        )
        await agent.prompt("warm up")
        times = []
        for i in range(RUNS):
            start = time.perf_counter()
            await agent.prompt(f"turn {i}")
            times.append((time.perf_counter() - start) * 1000)
        results.append(statistics.median(times))
    return results[0], results[1]


async def first_token(cwd: str) -> tuple[float, float]:
    """(median ms to first text delta via AgentSession, via bare litellm), same server."""
    from pi_lsp.agent.llm import litellm_module

    litellm = litellm_module()  # configured offline, as the daemon imports it
    turn = Turn(text="streamed reply " * 20, chunk_size=8)
    with FakeOpenAI(responder=lambda body: turn) as fake:
        settings = Settings.model_validate({"apiBase": fake.base_url})
        agent = await create_agent_session(
            SessionStore.in_memory(cwd), cwd, settings, AgentOptions(model="openai/fake-model")
        )
        first: list[float] = []
        started = 0.0

        def on_event(event: dict[str, Any]) -> None:
            if event["type"] == "message_update" and len(first) < marks[0]:
                first.append((time.perf_counter() - started) * 1000)

        marks = [0]
        agent.subscribe(on_event)
        ours = []
        for i in range(RUNS + 1):
            marks[0] = len(first) + 1
            started = time.perf_counter()
            await agent.prompt(f"question {i}")
            ours.append(first[-1])
        bare = []
        for i in range(RUNS + 1):
            started = time.perf_counter()
            response = await litellm.acompletion(
                model="openai/fake-model",
                api_base=fake.base_url,
                api_key="bench",
                messages=[{"role": "user", "content": f"question {i}"}],
                stream=True,
                max_retries=0,
            )
            async for chunk in response:
                if chunk.choices and chunk.choices[0].delta.content:
                    bare.append((time.perf_counter() - started) * 1000)
                    break
            await response.aclose()
    return statistics.median(ours[1:]), statistics.median(bare[1:])


def startup(path: Path) -> tuple[float, float]:
    """(median s of ``pi-lsp sessions tree --json``, of ``python -c 'import litellm'``)."""

    def timed(args: list[str]) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run(args, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    cli = timed([sys.executable, "-m", "pi_lsp", "sessions", "tree", str(path), "--json"])
    env_import = timed([sys.executable, "-c", "import litellm"])
    return cli, env_import


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["PI_CODING_AGENT_DIR"] = str(tmp_path / "agent")
        cwd = str(tmp_path)
        big = plain_copy("bench-large-20k", tmp_path)
        big_ms, empty_ms = asyncio.run(per_turn_overhead(big, cwd))
        ours, bare = asyncio.run(first_token(cwd))
        cli_s, litellm_s = startup(SESSIONS / "labels.jsonl")
    report("per-turn overhead, 22k-entry session", big_ms, "ms")
    report("per-turn overhead, empty session", empty_ms, "ms")
    report("first streamed token, AgentSession", ours, "ms")
    report("first streamed token, bare litellm", bare, "ms")
    report("pi-lsp sessions tree start-up", cli_s * 1000, "ms")
    report("import litellm alone", litellm_s * 1000, "ms")
    print(
        f"per-turn overhead, 22k-entry session: {big_ms:.2f} ms (empty session {empty_ms:.2f} ms; target <= 5 ms)"
    )
    print(
        f"first streamed token: AgentSession {ours:.1f} ms, bare litellm {bare:.1f} ms, added {ours - bare:+.1f} ms (target <= 20 ms)"
    )
    print(
        f"pi-lsp sessions tree start-up: {cli_s * 1000:.0f} ms; import litellm alone: {litellm_s * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()

"""Latency that ``stream_assistant`` adds over a bare ``litellm.acompletion`` call, offline.

Run: ``python bench/bench_stream.py [--runs N] [--warmup N]``. Both paths stream the same scripted
reply from the local fake server; the bare call gets already-converted provider messages, so the
difference is pi_lsp's own work: message conversion, request building, the abort race per chunk
and the event/partial bookkeeping. Calls alternate between the two paths and each figure is the
median of N calls (default 30, at least 20) after a warm-up. Prints results; writes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import report
from pi_lsp.agent.llm import load_litellm
from pi_lsp.agent.models import ModelInfo, ModelRef, resolve_model
from pi_lsp.agent.provider_messages import to_provider_messages, tool_definitions
from pi_lsp.agent.stream import Endpoint, ModelRequest, stream_assistant
from pi_lsp.devtools.builders import FAKE_MODEL, assistant, call, tool_result, user
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from pi_lsp.session.jsonl import JsonObject

REPLY = Turn(text="The fix is in place and the tests pass. " * 10, chunk_size=4)
TOOLS = [
    (f"tool{i}", "A tool", {"type": "object", "properties": {"path": {"type": "string"}}})
    for i in range(7)
]


def history(turns: int) -> list[JsonObject]:
    """A pi context: user prompt, then ``turns`` assistant tool calls with their results."""
    body = "\n".join(f"def f{j}(x):\n    return x + {j}" for j in range(40))
    messages = [user("Fix the failing test.")]
    for i in range(turns):
        read = call("read", f"c{i}", path=f"src/m{i}.py")
        messages.append(
            assistant(f"Reading module {i}.", calls=[read], stop="toolUse", **FAKE_MODEL)
        )
        messages.append(tool_result(body, f"c{i}"))
    return messages


async def first_and_total_bare(
    litellm: Any, model: ModelInfo, fake: FakeOpenAI, messages: list[JsonObject]
) -> tuple[float, float]:
    start = time.perf_counter()
    first = 0.0
    response = await litellm.acompletion(
        model=model.ref.litellm_model,
        messages=messages,
        tools=tool_definitions(TOOLS),
        stream=True,
        stream_options={"include_usage": True},
        max_retries=0,
        max_tokens=16384,
        api_base=fake.base_url,
        api_key="bench",
    )
    async for chunk in response:
        if not first and chunk.choices and chunk.choices[0].delta.content:
            first = time.perf_counter() - start
    return first, time.perf_counter() - start


async def first_and_total_ours(
    model: ModelInfo, fake: FakeOpenAI, messages: list[JsonObject], *, abort: bool
) -> tuple[float, float]:
    request = ModelRequest(
        model=model,
        messages=messages,
        system_prompt="You are a coding agent.",
        tools=TOOLS,
        endpoint=Endpoint(api_base=fake.base_url, api_key="bench"),
        abort=asyncio.Event() if abort else None,
    )
    start = time.perf_counter()
    first = 0.0
    async for event in stream_assistant(request):
        if not first and event["type"] == "text_delta":
            first = time.perf_counter() - start
    return first, time.perf_counter() - start


async def measure(
    label: str,
    runs: int,
    warmup: int,
    bare: Callable[[], Awaitable[tuple[float, float]]],
    ours: Callable[[], Awaitable[tuple[float, float]]],
) -> None:
    for _ in range(warmup):
        await bare()
        await ours()
    bare_first, bare_total, ours_first, ours_total = [], [], [], []
    for _ in range(runs):
        first, total = await bare()
        bare_first.append(first)
        bare_total.append(total)
        first, total = await ours()
        ours_first.append(first)
        ours_total.append(total)
    med = statistics.median
    first_added = med(o - b for o, b in zip(ours_first, bare_first, strict=True)) * 1000
    total_added = med(o - b for o, b in zip(ours_total, bare_total, strict=True)) * 1000
    print(f"{label}:")
    for what, bare_times, ours_times, added in (
        ("first token", bare_first, ours_first, first_added),
        ("whole reply", bare_total, ours_total, total_added),
    ):
        report(f"{label}: {what}, bare", med(bare_times) * 1000, "ms")
        report(f"{label}: {what}, stream_assistant", med(ours_times) * 1000, "ms")
        report(f"{label}: {what}, added", added, "ms")
    print(
        f"  first token: bare {med(bare_first) * 1000:6.2f} ms, stream_assistant "
        f"{med(ours_first) * 1000:6.2f} ms, added (median of pairs) {first_added:+6.2f} ms"
    )
    print(
        f"  whole reply: bare {med(bare_total) * 1000:6.2f} ms, stream_assistant "
        f"{med(ours_total) * 1000:6.2f} ms, added (median of pairs) {total_added:+6.2f} ms"
    )


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--no-abort", action="store_true", help="do not arm an abort event")
    args = parser.parse_args()
    runs = max(20, args.runs)
    litellm = await load_litellm()
    model = resolve_model(ModelRef.parse("openai/fake-model"))
    chunks = len(REPLY.text) // REPLY.chunk_size
    armed = "not armed" if args.no_abort else "armed"
    print(f"median of {runs} alternating calls, reply of {chunks} text chunks, abort event {armed}")
    with FakeOpenAI(Script(default=REPLY)) as fake:
        for turns in (0, 50):
            context = history(turns)
            wire = to_provider_messages(context, model, system_prompt="You are a coding agent.")
            await measure(
                f"context of {len(context)} pi message(s), {len(wire)} wire messages",
                runs,
                args.warmup,
                functools.partial(first_and_total_bare, litellm, model, fake, wire),
                functools.partial(
                    first_and_total_ours, model, fake, context, abort=not args.no_abort
                ),
            )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

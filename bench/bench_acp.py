"""ACP face benchmark (issue 13): initialize after spawn, chunk → session/update, load of the 22k session.

Run: ``.venv/bin/python bench/bench_acp.py`` (or ``make bench``); ``--quick`` for fewer runs.

Everything talks to the real ``python -m pi_lsp --acp`` subprocess over pipes with a raw
newline-delimited JSON-RPC client (so the client adds as little as possible). The provider is the
stamping scripted server of ``bench_daemon.py`` in its own process.

1. Spawn → ``initialize`` answer received (``PI_LSP_PREWARM=0``), median of the runs.
2. Provider text chunk written → the ``agent_message_chunk`` carrying it received.
3. ``session/load`` of the 22k-entry corpus session (placed in pi's folder for the cwd, under
   pi's file name): request sent → first ``session/update`` received, and → the load answered
   (the whole replay). Measured in a warm agent (one that has answered a ``session/list``, so
   its imports are done: the target's case) and, separately, sent right after ``initialize``
   (a client that loads at once waits for the SDK's and the daemon's imports too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_daemon import FakeProvider, daemon_env, pct, stamped_text  # noqa: E402
from bench.common import plain_copy, report, wait_or_kill  # noqa: E402
from pi_lsp.session.paths import session_dir, session_file_name  # noqa: E402

AGENT = [sys.executable, "-m", "pi_lsp", "--acp"]
COMMAND = ".venv/bin/python bench/bench_acp.py"


class Client:
    """A raw ACP client: requests by id, every notification with its arrival time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.updates: list[tuple[int, dict[str, Any]]] = []
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, env: dict[str, str], cwd: str) -> Client:
        process = await asyncio.create_subprocess_exec(
            *AGENT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            limit=1 << 26,
        )
        return cls(process)

    async def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        line = json.dumps(
            {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        )
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        return await asyncio.wait_for(future, timeout)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            arrival = time.monotonic_ns()
            message = json.loads(line)
            if message.get("method") == "session/update":
                self.updates.append((arrival, message["params"]["update"]))
            elif "id" in message and message["id"] in self.waiting:
                future = self.waiting.pop(message["id"])
                if "error" in message:
                    future.set_exception(RuntimeError(message["error"]))
                else:
                    future.set_result(message.get("result"))

    async def initialize(self) -> Any:
        return await self.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})

    async def close(self) -> None:
        await wait_or_kill(self.process, 20, close_stdin=True)
        self._reader.cancel()


def settings(agent_dir: Path, base_url: str) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "settings.json").write_text(
        json.dumps(
            {
                "apiBase": base_url,
                "defaultModel": "openai/fake-model",
                "models": {"openai/fake-model": {"contextWindow": 1_000_000}},
                "retry": {"baseDelayMs": 10},
            }
        )
    )


async def cold_initialize(runs: int, work: Path) -> list[float]:
    root = work / "init-project"
    root.mkdir(exist_ok=True)
    times: list[float] = []
    for run in range(runs + 1):  # the first run warms the disk cache and is dropped
        start = time.monotonic_ns()
        client = await Client.spawn(daemon_env(work / f"init-agent-{run}"), str(root))
        await client.initialize()
        elapsed = (time.monotonic_ns() - start) / 1e6
        await client.close()
        if run:
            times.append(elapsed)
    return times


async def chunk_latency(chunks: int, work: Path, delay: float) -> dict[str, Any]:
    fake = await FakeProvider.start()
    root = work / "latency-project"
    root.mkdir(exist_ok=True)
    agent_dir = work / "latency-agent"
    settings(agent_dir, fake.base_url)
    client = await Client.spawn(daemon_env(agent_dir), str(root))
    try:
        await client.initialize()
        session = (await client.request("session/new", {"cwd": str(root), "mcpServers": []}))[
            "sessionId"
        ]
        await fake.push(text="warm up", chunk_size=7)
        await client.request(
            "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "warm"}]}
        )
        await fake.push(text=stamped_text(chunks), chunk_size=7, chunk_delay=delay)
        client.updates.clear()
        await client.request(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]},
            timeout=60 + chunks * delay * 3,
        )
        stamps = await fake.stamps()
    finally:
        await client.close()
        await fake.stop()
    arrivals: dict[int, int] = {}
    for arrival, update in client.updates:
        text = (
            update.get("content", {}).get("text")
            if update.get("sessionUpdate") == "agent_message_chunk"
            else None
        )
        if isinstance(text, str) and len(text) == 7 and text.endswith("|"):
            arrivals[int(text[:6])] = arrival
    latencies = [(arrivals[i] - stamps[i]) / 1e6 for i in stamps if i in arrivals]
    steady = latencies[10:]
    return {
        "chunks": chunks,
        "matched": len(latencies),
        "median_ms": statistics.median(steady),
        "p95_ms": pct(steady, 0.95),
        "max_ms": max(steady),
    }


async def load_big(runs: int, work: Path) -> dict[str, Any]:
    """Each run loads the 22k session twice over: in a fresh agent, and in a warm one."""
    root = work / "big-project"
    root.mkdir(exist_ok=True)
    times: dict[str, list[float]] = {"warm": [], "cold": [], "warm_whole": [], "cold_whole": []}
    count = 0
    for run in range(runs + 1):  # the first round warms the disk cache and is dropped
        for mode in ("cold", "warm"):
            agent_dir = work / f"big-agent-{run}-{mode}"
            folder = session_dir(str(root), agent_dir)
            folder.mkdir(parents=True)
            copied = plain_copy("bench-large-20k", folder)
            header = json.loads(copied.open("rb").readline())
            session_id = header["id"]
            copied.rename(folder / session_file_name(header["timestamp"], session_id))
            client = await Client.spawn(daemon_env(agent_dir), str(root))
            try:
                await client.initialize()
                if mode == "warm":  # the agent's imports are done once it answers a request
                    await client.request("session/list", {"cwd": str(root)})
                start = time.monotonic_ns()
                await client.request(
                    "session/load", {"sessionId": session_id, "cwd": str(root), "mcpServers": []}
                )
                done = time.monotonic_ns()
                count = len(client.updates)
                if run:
                    times[mode].append((client.updates[0][0] - start) / 1e6)
                    times[f"{mode}_whole"].append((done - start) / 1e6)
            finally:
                await client.close()
    return {
        **{f"{key}_ms": statistics.median(value) for key, value in times.items()},
        "warm_all": [round(t, 1) for t in times["warm"]],
        "cold_all": [round(t, 1) for t in times["cold"]],
        "runs": runs,
        "updates": count,
    }


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runs = 3 if args.quick else 9
        load = await load_big(2 if args.quick else 5, work)
        if args.load_only:
            print(
                f"load, warm agent: first update {load['warm_ms']:.1f} ms {load['warm_all']}, "
                f"answered {load['warm_whole_ms']:.1f} ms; right after initialize: first update "
                f"{load['cold_ms']:.1f} ms {load['cold_all']}, answered {load['cold_whole_ms']:.1f} ms"
            )
            return
        init = await cold_initialize(runs, work)
        latency = await chunk_latency(200 if args.quick else 1000, work, 0.005)
    report("spawn to initialize answered", statistics.median(init), "ms")
    report("provider chunk to agent_message_chunk p50", latency["median_ms"], "ms")
    report("provider chunk to agent_message_chunk p95", latency["p95_ms"], "ms")
    for mode in ("warm", "cold"):
        report(f"session/load 22k, {mode} agent, to first update", load[f"{mode}_ms"], "ms")
        report(f"session/load 22k, {mode} agent, answered", load[f"{mode}_whole_ms"], "ms")
    print(f"Command: `{COMMAND}`{' --quick' if args.quick else ''}\n")
    print("| what | measured | target |")
    print("| --- | --- | --- |")
    print(
        f"| spawn → `initialize` answered, median of {len(init)} | {statistics.median(init):.1f} ms (max {max(init):.1f}) | ≤ 300 ms |"
    )
    print(
        f"| provider chunk → `agent_message_chunk`, median of {latency['matched'] - 10} | {latency['median_ms']:.2f} ms (p95 {latency['p95_ms']:.2f}, max {latency['max_ms']:.2f}) | ≤ 5 ms |"
    )
    print(
        f"| `session/load` of the 22k-entry session (agent warm) → first `session/update`, median of {load['runs']} | {load['warm_ms']:.1f} ms | ≤ 100 ms |"
    )
    print(
        f"| the same, sent right after `initialize` (the SDK's and daemon's imports first) | {load['cold_ms']:.1f} ms | – |"
    )
    print(
        f"| `session/load` → answered ({load['updates']} updates replayed), warm / right after `initialize` | {load['warm_whole_ms']:.1f} / {load['cold_whole_ms']:.1f} ms | – |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--load-only", action="store_true", help="only the session/load measure")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

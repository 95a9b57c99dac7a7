"""Daemon speed benchmark (issue 6): cold start, tree/messages under a streaming turn, chunk latency.

Run: ``.venv/bin/python bench/bench_daemon.py`` (or ``make bench``). Options: ``--quick`` (fewer
runs), ``--json`` (also print the numbers as one JSON line).

Everything talks to the real daemon subprocess (``python -m pi_lsp --stdio``) with raw LSP
framing over pipes, so the client adds as little as possible to what is timed. The provider is
the scripted OpenAI-compatible server (``pi_lsp.devtools.fake_openai``) in its own process; it
stamps every text chunk it writes with ``time.monotonic_ns()`` (CLOCK_MONOTONIC is system-wide
on Linux, so the stamps compare with the client's).

1. Cold start: process spawn → ``initialize`` response received (``PI_LSP_PREWARM=0``, litellm
   not imported), median of the runs. Then, honestly: spawn → first ``pi/sessions/list``
   answered after ``initialized``, and spawn → ``pi/session/new`` + ``pi/session/state``
   answered (a model is configured, so this includes importing litellm).
2. ``pi/session/tree`` and ``pi/session/messages`` on the 22k-entry corpus session while a turn
   streams on it (many small chunks, ``chunk_delay``): request sent → whole response received.
   The first request of each kind is reported on its own (cold caches).
3. Provider chunk written → matching ``message_update`` notification received, on a small
   session with nothing else going on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import plain_copy, report, spawn_piped, wait_or_kill  # noqa: E402
from pi_lsp.devtools.builders import VSCODE_CAPABILITIES  # noqa: E402

DAEMON = [sys.executable, "-m", "pi_lsp", "--stdio"]
COMMAND = ".venv/bin/python bench/bench_daemon.py"
MARK = re.compile(rb'"content": "(\d{6})\|"')
"""A stamped text chunk as the fake server writes it (``json.dumps`` of ``000042|``)."""


# ----------------------------------------------------------------- a raw JSON-RPC client


class RpcError(Exception):
    """An error response."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


class Client:
    """LSP over the daemon's stdin/stdout; every received message is stamped on arrival.

    ``answers`` maps server→client request methods to a function of the params returning the
    result; anything else is answered ``null``. ``on_message(message, arrival_ns)`` sees every
    message; ``notifications`` keeps ``(arrival_ns, message)`` of every notification.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)
        self.last_id = 0
        self._waiting: dict[int, asyncio.Future[tuple[int, Any]]] = {}
        self.answers: dict[str, Callable[[Any], Any]] = {
            "workspace/applyEdit": lambda params: {"applied": True},
            "pi/requestPermission": lambda params: {"decision": "allowOnce"},
        }
        self.notifications: list[tuple[int, dict[str, Any]]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.on_message: Callable[[dict[str, Any], int], None] | None = None
        self.keep_notifications = True
        self._raw_ids: set[int] = set()
        self._first_byte: dict[int, int] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, env: dict[str, str], cwd: str | None = None) -> Client:
        return cls(await spawn_piped(DAEMON, env, cwd, limit=1 << 20))

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":")).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def send(
        self, method: str, params: Any, *, raw: bool = False
    ) -> asyncio.Future[tuple[int, Any]]:
        """Send a request; the future gives ``(arrival_ns, result)``."""
        number = self.last_id = next(self._ids)
        future: asyncio.Future[tuple[int, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        if raw:
            self._raw_ids.add(number)
        self._write({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return future

    async def request(self, method: str, params: Any = None, timeout: float = 60) -> Any:
        _, result = await asyncio.wait_for(self.send(method, params), timeout)
        return result

    async def timed(self, method: str, params: Any, *, raw: bool = True) -> tuple[float, float]:
        """Milliseconds from sending the request to its first byte, and to the whole response.

        The first byte (the header, read with the first piece of the body) stands for the
        daemon's own time; the rest is moving the body through the pipe into this client.
        """
        start = time.monotonic_ns()
        future = self.send(method, params, raw=raw)
        number = self.last_id
        arrival, _ = await asyncio.wait_for(future, 60)
        first = self._first_byte.pop(number, arrival)
        return (first - start) / 1e6, (arrival - start) / 1e6

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                header = await stdout.readuntil(b"\r\n\r\n")
                first = time.monotonic_ns()
                length = int(re.search(rb"Content-Length: (\d+)", header).group(1))  # type: ignore[union-attr]
                body = await stdout.readexactly(length)
                arrival = time.monotonic_ns()
                self._dispatch(body, arrival, first)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            pass
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ConnectionError("the daemon went away"))

    def _dispatch(self, body: bytes, arrival: int, first: int) -> None:
        if self._raw_ids and body.startswith(b'{"jsonrpc":"2.0","id":'):
            number = int(body[22 : body.index(b",", 22)])
            if number in self._raw_ids:
                self._raw_ids.discard(number)
                self._first_byte[number] = first
                future = self._waiting.pop(number)
                if b'"error"' in body[:200] and b'"result"' not in body[:200]:
                    future.set_exception(RpcError(json.loads(body)["error"]))
                else:
                    future.set_result((arrival, body))
                return
        message = json.loads(body)
        if self.on_message is not None:
            self.on_message(message, arrival)
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            answer = self.answers.get(message["method"])
            result = answer(message.get("params")) if answer else None
            self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "method" in message:
            if self.keep_notifications:
                self.notifications.append((arrival, message))
        else:
            future = self._waiting.pop(message["id"], None)
            if future is None or future.done():
                return
            if "error" in message:
                future.set_exception(RpcError(message["error"]))
            else:
                future.set_result((arrival, message.get("result")))

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        """``pi/event`` params received so far (of one event type)."""
        found = [m["params"] for _, m in self.notifications if m.get("method") == "pi/event"]
        return [e for e in found if kind is None or e["event"]["type"] == kind]

    async def wait_event(self, kind: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events(kind)) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {kind} event in {timeout} s")
            await asyncio.sleep(0.01)

    async def initialize(
        self, root: Path, options: dict[str, Any], capabilities: dict[str, Any] | None = None
    ) -> Any:
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": VSCODE_CAPABILITIES if capabilities is None else capabilities,
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "initializationOptions": {"pi": options},
            },
        )
        self.notify("initialized", {})
        return result

    async def close(self) -> None:
        """shutdown + exit, then wait for the process (killed if it lingers)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.request("shutdown"), 10)
            self.notify("exit", None)
        await wait_or_kill(self.process, 10)
        self._reader.cancel()


BYTECODE_CACHE: list[Path] = []
"""With ``--bytecode-cache``: a directory for the daemon's ``.pyc`` files (``PYTHONPYCACHEPREFIX``)."""


def daemon_env(agent_dir: Path, prewarm: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update(
        PI_CODING_AGENT_DIR=str(agent_dir),
        OPENAI_API_KEY="bench-key",
        PI_LSP_PREWARM="1" if prewarm else "0",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    if BYTECODE_CACHE:  # as an installed package would run: its modules compiled once
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(BYTECODE_CACHE[0])
    return env


def pi_options(base_url: str) -> dict[str, Any]:
    """``initializationOptions.pi``: the fake provider, a big window (no compaction)."""
    return {
        "apiBase": base_url,
        "defaultModel": "openai/fake-model",
        "models": {"openai/fake-model": {"contextWindow": 1_000_000}},
        "retry": {"baseDelayMs": 10},
    }


# ----------------------------------------------------------------- the stamping fake provider


class FakeProvider:
    """``pi_lsp.devtools.fake_openai`` in a subprocess (this script with ``--serve-fake``).

    Commands on its stdin, one JSON line each: ``{"push": turn}`` queues a scripted turn,
    ``{"stamps": true}`` answers ``[[index, written_ns], …]`` for the stamped chunks written so
    far; closing stdin stops it.
    """

    def __init__(self, process: asyncio.subprocess.Process, base_url: str) -> None:
        self.process = process
        self.base_url = base_url

    @classmethod
    async def start(cls) -> FakeProvider:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--serve-fake",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 24,
        )
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), 30)
        return cls(process, line.decode().strip())

    async def _command(self, command: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command).encode() + b"\n")
        await self.process.stdin.drain()
        return json.loads(await self.process.stdout.readline())

    async def push(self, **turn: Any) -> None:
        await self._command({"push": turn})

    async def stamps(self) -> dict[int, int]:
        return {index: ns for index, ns in await self._command({"stamps": True})}

    async def stop(self) -> None:
        await wait_or_kill(self.process, 10, close_stdin=True)


def serve_fake() -> None:
    """The ``--serve-fake`` side of :class:`FakeProvider` (runs in its own process)."""
    import threading

    from pi_lsp.devtools import fake_openai
    from pi_lsp.devtools.fake_script import Turn

    stamps: list[tuple[int, int]] = []
    lock = threading.Lock()
    plain_write = fake_openai._Handler._write

    def stamped_write(self: Any, data: bytes) -> None:
        plain_write(self, data)
        written = time.monotonic_ns()
        match = MARK.search(data)
        if match:
            with lock:
                stamps.append((int(match.group(1)), written))

    fake_openai._Handler._write = stamped_write  # type: ignore[method-assign]
    fake = fake_openai.FakeOpenAI()
    fake.start()
    print(fake.base_url, flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        if "push" in command:
            fake.push(Turn.model_validate(command["push"]))
            print("{}", flush=True)
        elif "stamps" in command:
            with lock:
                print(json.dumps(stamps), flush=True)
    fake.stop()


def stamped_text(count: int) -> str:
    """``count`` chunks of 7 characters: ``000000|000001|…`` (send with ``chunk_size=7``)."""
    return "".join(f"{i:06d}|" for i in range(count))


# ----------------------------------------------------------------- measurements


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1), nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


async def cold_start(runs: int, work: Path) -> dict[str, Any]:
    """Spawn → initialize answered; spawn → first list; spawn → new session + state."""
    fake = await FakeProvider.start()
    root = work / "cold-project"
    root.mkdir(exist_ok=True)
    init_ms: list[float] = []
    list_ms: list[float] = []
    state_ms: list[float] = []
    prewarm_state_ms: list[float] = []
    try:
        for run in range(runs + 1):  # the first run warms the disk cache and is dropped
            for prewarm in (False, True):
                if prewarm and run % 2:  # the prewarm variant on every other run only
                    continue
                agent = work / f"cold-agent-{run}-{prewarm}"
                start = time.monotonic_ns()
                client = await Client.spawn(daemon_env(agent, prewarm=prewarm), cwd=str(root))
                await client.initialize(root, pi_options(fake.base_url))
                initialized = time.monotonic_ns()
                await client.request("pi/sessions/list", {})
                listed = time.monotonic_ns()
                state = await client.request("pi/session/new", {})
                await client.request("pi/session/state", {"sessionId": state["sessionId"]})
                stated = time.monotonic_ns()
                await client.close()
                if run == 0:
                    continue
                if prewarm:
                    prewarm_state_ms.append((stated - start) / 1e6)
                else:
                    init_ms.append((initialized - start) / 1e6)
                    list_ms.append((listed - start) / 1e6)
                    state_ms.append((stated - start) / 1e6)
    finally:
        await fake.stop()
    return {
        "initialize_ms": statistics.median(init_ms),
        "initialize_all_ms": init_ms,
        "first_list_ms": statistics.median(list_ms),
        "first_state_ms": statistics.median(state_ms),
        "first_state_prewarm_ms": statistics.median(prewarm_state_ms),
        "runs": len(init_ms),
    }


async def reads_while_streaming(
    count: int, work: Path, delay: float, idle: int = 50
) -> dict[str, Any]:
    """tree and messages on the 22k session while a turn streams on it (then idle, for scale)."""
    fake = await FakeProvider.start()
    root = work / "big-project"
    root.mkdir(exist_ok=True)
    big = plain_copy("bench-large-20k", work)
    client = await Client.spawn(daemon_env(work / "big-agent"), cwd=str(root))
    timings: dict[str, list[tuple[float, float]]] = {
        "tree": [],
        "messages": [],
        "tree_idle": [],
        "messages_idle": [],
    }
    try:
        await client.initialize(root, pi_options(fake.base_url))
        opened = time.monotonic_ns()
        state = await client.request(
            "pi/session/open", {"path": str(big), "folder": root.as_uri()}, timeout=120
        )
        open_ms = (time.monotonic_ns() - opened) / 1e6
        session = state["sessionId"]
        params = {"sessionId": session}
        await client.request(
            "pi/session/setModel", {"sessionId": session, "model": "openai/fake-model"}
        )
        # A long stream at a fast model's pace (one chunk every `delay` s), far longer than the
        # requests need; aborted when they are done.
        await fake.push(text=stamped_text(100_000), chunk_size=7, chunk_delay=delay)
        await client.request("pi/session/prompt", {"sessionId": session, "text": "go on"})
        await client.wait_event("message_update", 5)
        first_tree = await client.timed("pi/session/tree", params)
        first_messages = await client.timed("pi/session/messages", params)
        updates_before = len(client.events("message_update"))
        for _ in range(count):
            timings["tree"].append(await client.timed("pi/session/tree", params))
            timings["messages"].append(await client.timed("pi/session/messages", params))
        updates_during = len(client.events("message_update")) - updates_before
        still_streaming = not client.events("agent_end")
        await client.request("pi/session/abort", params)
        await client.wait_event("agent_end")
        for _ in range(idle):
            timings["tree_idle"].append(await client.timed("pi/session/tree", params))
            timings["messages_idle"].append(await client.timed("pi/session/messages", params))
        # One parsed answer of each, to check the shapes and report sizes.
        tree = await client.request("pi/session/tree", params)
        messages = await client.request("pi/session/messages", params)
    finally:
        await client.close()
        await fake.stop()
    return {
        "entries": state["entryCount"],
        "open_ms": open_ms,
        "first_tree_ms": first_tree,
        "first_messages_ms": first_messages,
        **timings,
        "nodes": len(tree["nodes"]),
        "message_entries": len(messages["entries"]),
        "tree_bytes": len(json.dumps(tree, separators=(",", ":"), ensure_ascii=False).encode()),
        "messages_bytes": len(
            json.dumps(messages, separators=(",", ":"), ensure_ascii=False).encode()
        ),
        "updates_during": updates_during,
        "still_streaming": still_streaming,
        "delay_ms": delay * 1000,
    }


async def chunk_latency(chunks: int, work: Path, delay: float) -> dict[str, Any]:
    """Provider chunk written → ``message_update`` with that chunk's text received."""
    fake = await FakeProvider.start()
    root = work / "latency-project"
    root.mkdir(exist_ok=True)
    client = await Client.spawn(daemon_env(work / "latency-agent"), cwd=str(root))
    arrivals: dict[int, int] = {}

    def on_message(message: dict[str, Any], arrival: int) -> None:
        if message.get("method") != "pi/event":
            return
        event = message["params"]["event"]
        if event["type"] == "message_update":
            sub = event["assistantMessageEvent"]
            delta = sub.get("delta") if sub.get("type") == "text_delta" else None
            if isinstance(delta, str) and len(delta) == 7 and delta.endswith("|"):
                arrivals[int(delta[:6])] = arrival

    client.on_message = on_message
    try:
        await client.initialize(root, pi_options(fake.base_url))
        session = (await client.request("pi/session/new", {}))["sessionId"]
        await fake.push(text="warm up", chunk_size=7)  # litellm's first call in a process is slow
        await client.request("pi/session/prompt", {"sessionId": session, "text": "warm up"})
        await client.wait_event("agent_end")
        await fake.push(text=stamped_text(chunks), chunk_size=7, chunk_delay=delay)
        cpu_before = cpu_seconds(client.process.pid)
        await client.request("pi/session/prompt", {"sessionId": session, "text": "stream"})
        await client.wait_event("agent_end", 2, timeout=60 + chunks * delay * 3)
        cpu_per_chunk_ms = (cpu_seconds(client.process.pid) - cpu_before) / chunks * 1000
        stamps = await fake.stamps()
    finally:
        await client.close()
        await fake.stop()
    latencies = [(arrivals[i] - stamps[i]) / 1e6 for i in stamps if i in arrivals]
    steady = latencies[10:]  # the first chunks of a stream ride with the response headers
    return {
        "chunks": chunks,
        "delay_ms": delay * 1000,
        "matched": len(latencies),
        "median_ms": statistics.median(steady),
        "p95_ms": pct(steady, 0.95),
        "p99_ms": pct(steady, 0.99),
        "max_ms": max(steady),
        "first_ms": latencies[0] if latencies else float("nan"),
        "cpu_per_chunk_ms": cpu_per_chunk_ms,
    }


# ----------------------------------------------------------------- report


def _row(what: str, value: float, target: float | None) -> str:
    if target is None:
        return f"| {what} | {value:.1f} ms | – | – |"
    verdict = "ok" if value <= target else "MISSED"
    return f"| {what} | {value:.1f} ms | ≤ {target:g} ms | {value / target:.2f} ({verdict}) |"


def _quantiles(what: str, pairs: list[tuple[float, float]], target: float | None) -> list[str]:
    lines = []
    for index, part in ((0, "first byte"), (1, "whole response")):
        values = [pair[index] for pair in pairs]
        p50, p95, p99 = statistics.median(values), pct(values, 0.95), pct(values, 0.99)
        shown = f"{p50:.1f} / {p95:.1f} / {p99:.1f} ms"
        if target is None:
            lines.append(f"| {what}, to {part} (p50 / p95 / p99) | {shown} | – | – |")
        else:
            verdict = "ok" if p99 <= target else "MISSED"
            lines.append(
                f"| {what}, to {part} (p50 / p95 / p99) | {shown} | p99 ≤ {target:g} ms | {p99 / target:.2f} ({verdict}) |"
            )
    return lines


def table(
    cold: dict[str, Any] | None, reads: dict[str, Any] | None, latency: dict[str, Any] | None
) -> list[str]:
    """The results table (Markdown) and notes."""
    lines = ["| measure | result | target | ratio |", "|---|---|---|---|"]
    notes = []
    if cold is not None:
        lines += [
            _row(
                f"cold start: spawn → initialize response (median of {cold['runs']})",
                cold["initialize_ms"],
                300,
            ),
            _row(
                "spawn → first pi/sessions/list answered after initialized",
                cold["first_list_ms"],
                None,
            ),
            _row(
                "spawn → pi/session/new + pi/session/state answered (imports litellm)",
                cold["first_state_ms"],
                None,
            ),
            _row(
                "same with PI_LSP_PREWARM=1 (litellm imported after initialized)",
                cold["first_state_prewarm_ms"],
                None,
            ),
        ]
        notes.append(
            f"cold start runs (ms, PI_LSP_PREWARM=0): {', '.join(f'{v:.0f}' for v in cold['initialize_all_ms'])}"
        )
    if reads is not None:
        tree, messages = reads["tree"], reads["messages"]
        first_tree, first_messages = reads["first_tree_ms"], reads["first_messages_ms"]
        lines += [
            *_quantiles(f"pi/session/tree while streaming ({len(tree)} requests)", tree, 10),
            *_quantiles(
                f"pi/session/messages while streaming ({len(messages)} requests)", messages, 10
            ),
            f"| first pi/session/tree (cold), to first byte / whole | {first_tree[0]:.1f} / {first_tree[1]:.1f} ms | – | – |",
            f"| first pi/session/messages (cold), to first byte / whole | {first_messages[0]:.1f} / {first_messages[1]:.1f} ms | – | – |",
            *_quantiles(
                f"pi/session/tree idle ({len(reads['tree_idle'])} requests)",
                reads["tree_idle"],
                None,
            ),
            *_quantiles(
                f"pi/session/messages idle ({len(reads['messages_idle'])} requests)",
                reads["messages_idle"],
                None,
            ),
        ]
        notes.append(
            f"22k session: {reads['entries']} entries, {reads['nodes']} tree nodes ({reads['tree_bytes'] / 1e6:.2f} MB of JSON per tree), "
            f"{reads['message_entries']} context entries ({reads['messages_bytes'] / 1e3:.0f} kB per messages answer); "
            f"pi/session/open took {reads['open_ms']:.0f} ms; the turn streamed one chunk every {reads['delay_ms']:.0f} ms and "
            f"{reads['updates_during']} message_update events arrived during the reads; "
            f"still streaming after the last read: {reads['still_streaming']}"
        )
    if latency is not None:
        lines += [
            _row(
                f"provider chunk → client notification, median ({latency['matched']} chunks)",
                latency["median_ms"],
                5,
            ),
            f"| provider chunk → client notification p95 / p99 / max | {latency['p95_ms']:.1f} / {latency['p99_ms']:.1f} / {latency['max_ms']:.1f} ms | – | – |",
            f"| daemon CPU per streamed chunk | {latency['cpu_per_chunk_ms']:.2f} ms | – | – |",
        ]
        notes.append(
            f"chunk latency: {latency['chunks']} stamped chunks, one every {latency['delay_ms']:.0f} ms; "
            f"the first 10 are left out (first chunk {latency['first_ms']:.1f} ms)"
        )
    return [*lines, "", *notes]


def report_measures(
    cold: dict[str, Any] | None, reads: dict[str, Any] | None, latency: dict[str, Any] | None
) -> None:
    """The table's figures as ``#measure`` lines (for ``bench/compare.py``)."""
    if cold is not None:
        for key in ("initialize_ms", "first_list_ms", "first_state_ms", "first_state_prewarm_ms"):
            report(f"cold start {key.removesuffix('_ms')}", cold[key], "ms")
    if reads is not None:
        for view in ("tree", "messages", "tree_idle", "messages_idle"):
            for index, part in ((0, "first byte"), (1, "whole")):
                values = [pair[index] for pair in reads[view]]
                report(f"{view} to {part} p50", statistics.median(values), "ms")
                report(f"{view} to {part} p99", pct(values, 0.99), "ms")
        report("first tree (cold) to first byte", reads["first_tree_ms"][0], "ms")
        report("first messages (cold) to first byte", reads["first_messages_ms"][0], "ms")
    if latency is not None:
        for key in ("median_ms", "p95_ms", "p99_ms"):
            report(f"chunk to notification {key.removesuffix('_ms')}", latency[key], "ms")
        report("daemon CPU per streamed chunk", latency["cpu_per_chunk_ms"], "ms")


async def run(args: argparse.Namespace) -> None:
    cold_runs = 3 if args.quick else args.cold_runs
    reads_count = 50 if args.quick else args.reads
    chunks = 200 if args.quick else args.chunks
    phases = set(args.phases.split(","))
    with tempfile.TemporaryDirectory(prefix="bench-daemon-") as tmp:
        work = Path(tmp)
        if args.bytecode_cache:
            BYTECODE_CACHE.append(work / "pycache")
        cold = await cold_start(cold_runs, work) if "cold" in phases else None
        reads = (
            await reads_while_streaming(reads_count, work, args.stream_delay)
            if "reads" in phases
            else None
        )
        latency = (
            await chunk_latency(chunks, work, args.chunk_delay) if "latency" in phases else None
        )
    load = os.getloadavg()
    print(f"command: {' '.join([COMMAND, *sys.argv[1:]])}")
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not args.bytecode_cache:
        print("PYTHONDONTWRITEBYTECODE is set: the daemon compiles pi_lsp's modules at every start")
    for line in table(cold, reads, latency):
        print(line)
    report_measures(cold, reads, latency)
    if args.json:
        print(json.dumps({"cold": cold, "reads": reads, "latency": latency}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve-fake", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test)")
    parser.add_argument(
        "--bytecode-cache",
        action="store_true",
        help="let the daemon keep .pyc files (in a temporary PYTHONPYCACHEPREFIX) even when "
        "PYTHONDONTWRITEBYTECODE is set, as an installed package would",
    )
    parser.add_argument(
        "--phases", default="cold,reads,latency", help="which to run (default: cold,reads,latency)"
    )
    parser.add_argument("--json", action="store_true", help="also print the raw numbers as JSON")
    parser.add_argument("--cold-runs", type=int, default=9, help="cold starts to time (default 9)")
    parser.add_argument(
        "--reads", type=int, default=250, help="tree and messages requests each (default 250)"
    )
    parser.add_argument(
        "--chunks", type=int, default=500, help="stamped chunks for the latency (default 500)"
    )
    parser.add_argument(
        "--stream-delay",
        type=float,
        default=0.01,
        help="seconds between chunks of the turn streaming during the reads (default 0.01)",
    )
    parser.add_argument(
        "--chunk-delay",
        type=float,
        default=0.01,
        help="seconds between the stamped chunks (default 0.01)",
    )
    args = parser.parse_args()
    if args.serve_fake:
        serve_fake()
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()

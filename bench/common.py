"""Timing helpers shared by the benchmark scripts (median of repeated runs after a warm-up)."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(
    os.environ.get("PI_LSP_CONFORMANCE_DIR", ROOT.parent / "shared" / "conformance" / "pi-v0.58.3")
)
SESSIONS = CORPUS / "sessions"


CLOCK = time.process_time if os.environ.get("PI_LSP_BENCH_CLOCK") == "cpu" else time.perf_counter
"""Wall time by default; ``PI_LSP_BENCH_CLOCK=cpu`` measures this process's CPU time instead
(comparable between runs when other work shares the machine)."""


MEASURE_PREFIX = "#measure "
"""Start of the machine-readable lines :func:`report` prints (``bench/compare.py`` reads them)."""


def report(name: str, value: float, unit: str) -> None:
    """Print one measure as ``#measure {"name": …, "value": …, "unit": …}`` for ``bench/compare.py``.

    Only when ``PI_LSP_BENCH_REPORT=1`` (``compare.py`` sets it), so the tables a script prints for
    people stay as they are. ``name`` must stay the same across revisions: it pairs the before and
    after figures.
    """
    if os.environ.get("PI_LSP_BENCH_REPORT") == "1":
        line = json.dumps({"name": name, "value": value, "unit": unit}, ensure_ascii=False)
        print(MEASURE_PREFIX + line, flush=True)


def median_ms(fn: Callable[[], object], runs: int = 9, warmup: int = 1) -> float:
    """Median time of ``fn`` in milliseconds (see :data:`CLOCK`)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = CLOCK()
        fn()
        times.append((CLOCK() - start) * 1000)
    return statistics.median(times)


def plain_copy(name: str, directory: Path) -> Path:
    """The corpus session ``name`` as a plain .jsonl file in ``directory``."""
    target = directory / f"{name}.jsonl"
    source = SESSIONS / f"{name}.jsonl"
    if source.exists():
        shutil.copyfile(source, target)
    else:
        with gzip.open(SESSIONS / f"{name}.jsonl.gz") as packed, target.open("wb") as out:
            shutil.copyfileobj(packed, out)
    return target


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def spawn_piped(
    command: Sequence[str], env: dict[str, str], cwd: str | None, *, limit: int
) -> asyncio.subprocess.Process:
    """A server process (the LSP daemon, the ACP agent) on stdin/stdout, its stderr dropped;
    ``limit`` is the longest line or frame the reader takes."""
    return await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        limit=limit,
    )


async def wait_or_kill(
    process: asyncio.subprocess.Process, timeout: float, *, close_stdin: bool = False
) -> None:
    """Wait for ``process`` to exit (after closing its stdin, which asks a piped server to stop);
    kill it if it is still running after ``timeout`` seconds."""
    if close_stdin and process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()

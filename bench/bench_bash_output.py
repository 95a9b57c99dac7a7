"""Benchmark bash under a flood of output: coalesced partial results against one per chunk.

Run: ``python bench/bench_bash_output.py [--runs N] [--mb M]``. A command prints M MB (default
100) of short lines; the tool runs it once with partial results coalesced (the shipped
``UPDATE_INTERVAL``) and once with an interval of 0 (one result per pipe chunk, what bash did
before), in the same run. Prints, per mode, the median wall time over N runs (default 7), the
number of partial results, the bytes they carry (JSON of their content) and the size of the
full-output file. Writes only to a temporary directory, which it removes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import report
from pi_lsp.tools import ShellSettings, ToolResult, close_tools, create_tools
from pi_lsp.tools import bash as bash_module


async def one(mb: int, temp: str) -> tuple[float, int, int, int]:
    """Seconds, partial results, their bytes, full-output file bytes."""
    tools = create_tools(temp, shell=ShellSettings(temp_dir=temp))
    updates: list[ToolResult] = []
    began = time.perf_counter()
    command = f"yes 'a line of output' | head -c {mb * 1024 * 1024}"
    result = await tools["bash"].execute({"command": command}, on_update=updates.append)
    elapsed = time.perf_counter() - began
    sent = sum(len(json.dumps(list(u.content))) for u in updates)
    path = (result.details or {}).get("fullOutputPath")
    size = os.path.getsize(path) if path else 0
    close_tools(tools)
    return elapsed, len(updates), sent, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mb", type=int, default=100)
    args = parser.parse_args()
    shipped = bash_module.UPDATE_INTERVAL
    rows: dict[str, tuple[float, int, int, int]] = {}
    with tempfile.TemporaryDirectory() as temp:
        for label, interval in (("coalesced", shipped), ("per chunk", 0.0)):
            bash_module.UPDATE_INTERVAL = interval
            runs = [asyncio.run(one(args.mb, temp)) for _ in range(args.runs)]
            median = statistics.median(r[0] for r in runs)
            last = runs[-1]
            rows[label] = (median, last[1], last[2], last[3])
    bash_module.UPDATE_INTERVAL = shipped
    print(f"{args.mb} MB of output, median of {args.runs}")
    for label, (seconds, count, sent, size) in rows.items():
        report(f"{label}: wall time", seconds * 1000, "ms")
        report(f"{label}: partial results", count, "")
        report(f"{label}: bytes in partial results", sent / 1e6, "MB")
        print(
            f"{label:>10}: {seconds * 1000:8.0f} ms  {count:6d} updates  "
            f"{sent / 1e6:8.2f} MB in updates  full-output file {size / 1e6:.1f} MB"
        )
    fast, slow = rows["coalesced"], rows["per chunk"]
    print(
        f"ratio coalesced / per chunk: time {fast[0] / slow[0]:.2f}, bytes {fast[2] / slow[2]:.4f}"
    )


if __name__ == "__main__":
    main()

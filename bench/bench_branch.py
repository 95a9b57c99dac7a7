"""Branch + context side by side with the real pi 1.6.0 (issue 14): the ratio pi_lsp / pi in one run.

Run: ``.venv/bin/python bench/bench_branch.py [ROUNDS]`` (or ``make bench``; needs ``make pi16``).
On the corpus's ``deep-tree`` (1,061 entries, path depth 910) and ``bench-large-20k`` (22,002
entries) sessions, each program opens the file once and then repeats a round: branch to the
middle entry of the file + build the context there, then branch back to the leaf + build the
context there; each half is timed on its own. pi runs in Node (``bench/pi_branch.mjs``: pi's
``SessionManager.branch`` + ``buildSessionContext``), pi_lsp in this process
(``SessionStore.branch`` + ``context``). Both warm up for a tenth of the rounds first. A third
row times pi_lsp's branch + context on a freshly opened store (nothing cached but the leaf's
context), against pi's same warm figure: pi caches nothing between calls.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import plain_copy, report
from pi_lsp.session import SessionStore
from tests.interop.pi16 import NODE, PACKAGE, PI16_DIR

FILES = {"deep-tree": 2000, "bench-large-20k": 100}
"""Corpus session -> rounds (pi needs about 60 ms per context on the big file)."""
FRESH_RUNS = {"deep-tree": 51, "bench-large-20k": 11}
"""Freshly opened stores per file for the nothing-cached row."""


def pi_rounds(
    path: Path, rounds: int, scratch: Path, script_name: str = "pi_branch.mjs"
) -> dict[str, list[float]]:
    """pi 1.6.0's times, from ``pi_branch.mjs`` (or another such script) in one Node process."""
    if not (PI16_DIR / "READY").is_file():
        raise SystemExit(f"pi 1.6.0 is not installed in {PI16_DIR}: run `make pi16`")
    script = Path(__file__).with_name(script_name)
    done = subprocess.run(
        [str(NODE), str(script), str(path), str(rounds), str(scratch)],
        capture_output=True,
        text=True,
        env={**os.environ, "PI16_PACKAGE": str(PACKAGE)},
        check=True,
    )
    result: dict[str, list[float]] = json.loads(done.stdout)
    return result


def pi_lsp_rounds(path: Path, rounds: int) -> dict[str, list[float]]:
    """pi_lsp's times for the same rounds, in this process."""
    store = SessionStore.open(path)
    records = store.records
    middle = records[len(records) // 2].id
    leaf = store.leaf_id
    assert leaf is not None
    store.context()
    to_middle: list[float] = []
    to_leaf: list[float] = []
    clock = time.perf_counter
    for index in range(rounds // 10 + rounds):
        start = clock()
        store.branch(middle)
        store.context()
        mid = clock()
        store.branch(leaf)
        store.context()
        end = clock()
        if index >= rounds // 10:
            to_middle.append((mid - start) * 1000)
            to_leaf.append((end - mid) * 1000)
    return {"toMiddle": to_middle, "toLeaf": to_leaf}


def fresh_rounds(path: Path, runs: int) -> list[float]:
    """Branch + context at the middle on stores just opened (the leaf's context built)."""
    times = []
    for _ in range(runs):
        store = SessionStore.open(path)
        store.context()
        middle = store.records[len(store.records) // 2].id
        start = time.perf_counter()
        store.branch(middle)
        store.context()
        times.append((time.perf_counter() - start) * 1000)
    return times


def spread(times: list[float]) -> str:
    """Median with the 10th-90th percentile range, in ms."""
    deciles = statistics.quantiles(times, n=10)
    return f"{statistics.median(times):.4f} ({deciles[0]:.4f}-{deciles[-1]:.4f})"


def main() -> int:
    rounds_override = int(sys.argv[1]) if len(sys.argv) > 1 else None
    print("branch + context, ms: median (p10-p90); ratio = pi_lsp / pi of the medians")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for name, rounds in FILES.items():
            rounds = rounds_override or rounds
            path = plain_copy(name, scratch)
            pi = pi_rounds(path, rounds, scratch)
            ours = pi_lsp_rounds(path, rounds)
            fresh = fresh_rounds(path, FRESH_RUNS[name])
            print(f"{name} ({pi['entries']} entries, {rounds} rounds)")
            rows = (
                ("to the middle + context", ours["toMiddle"], pi["toMiddle"]),
                ("back to the leaf + context", ours["toLeaf"], pi["toLeaf"]),
                ("to the middle, fresh store", fresh, pi["toMiddle"]),
            )
            for label, mine, theirs in rows:
                ratio = statistics.median(mine) / statistics.median(theirs)
                print(
                    f"  {label:28s} pi_lsp {spread(mine):28s} pi {spread(theirs):28s} "
                    f"ratio {ratio:.3f}"
                )
                report(f"{name}: {label}, pi_lsp", statistics.median(mine), "ms")
                report(f"{name}: {label}, pi 1.6.0", statistics.median(theirs), "ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

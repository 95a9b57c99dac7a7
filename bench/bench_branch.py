"""Branch + context side by side with the real pi 1.6.0 (issue 14): the ratio pi_lsp / pi in one run.

Run: ``.venv/bin/python bench/bench_branch.py [ROUNDS]`` (or ``make bench``; needs ``make pi16``).
On the corpus's ``deep-tree`` (1,061 entries, path depth 910) and ``bench-large-20k`` (22,002
entries) sessions, each program opens the file once and then repeats a round: branch to the
middle entry of the file + build the context there, then branch back to the leaf + build the
context there; each half is timed on its own. pi runs in Node (``bench/pi_branch.mjs``: pi's
``SessionManager.branch`` + ``buildSessionContext``), pi_lsp in this process
(``SessionStore.branch`` + ``context``). Both warm up for a tenth of the rounds first.

Then the first visit: each program opens the file again and again (``FRESH_RUNS``, after a tenth
of them as warm-up) and times the open and, on the store or manager just made, the first branch
to the middle + context (nothing cached: pi_lsp parses the entries of that context then, pi
parsed every entry in the open). The last row is the sum per open, the figure issue 14's
``<= 0.5x pi`` is read on for a fresh store. ``PI_LSP_BENCH_CLOCK=cpu`` times these first-visit
rows on both programs' CPU clocks (Node: ``process.cpuUsage``, every thread), which the load of
other work on the machine disturbs far less than wall time. The warm rows stay on the wall clock:
they last microseconds, and one read of a CPU clock costs 2-4 us under load (a system call).
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

from bench.common import CLOCK, plain_copy, report
from pi_lsp.session import SessionStore
from tests.interop.pi16 import NODE, PACKAGE, PI16_DIR

FILES = {"deep-tree": 2000, "bench-large-20k": 100}
"""Corpus session -> rounds (pi needs about 60 ms per context on the big file)."""
FRESH_RUNS = {"deep-tree": 101, "bench-large-20k": 15}
"""Fresh opens per file for the first-visit rows (pi's open of the big file takes 0.2-0.5 s)."""


def pi_rounds(
    path: Path, rounds: int, scratch: Path, script_name: str = "pi_branch.mjs", fresh: int = 0
) -> dict[str, list[float]]:
    """pi 1.6.0's times, from ``pi_branch.mjs`` (or another such script) in one Node process.

    ``fresh`` (``pi_branch.mjs`` only) also times that many fresh opens and first visits.
    """
    if not (PI16_DIR / "READY").is_file():
        raise SystemExit(f"pi 1.6.0 is not installed in {PI16_DIR}: run `make pi16`")
    script = Path(__file__).with_name(script_name)
    extra = [str(fresh)] if fresh else []
    done = subprocess.run(
        [str(NODE), str(script), str(path), str(rounds), str(scratch), *extra],
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
    clock = time.perf_counter  # wall even under PI_LSP_BENCH_CLOCK=cpu: see the module text
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


def fresh_rounds(path: Path, runs: int) -> dict[str, list[float]]:
    """Open + first branch to the middle + context, each timed, on stores just opened.

    Nothing is cached before the branch (as pi's manager, which caches nothing at all); a
    tenth of the runs warm up first.
    """
    first = SessionStore.open(path)
    middle = first.records[len(first.records) // 2].id
    del first
    opens: list[float] = []
    visits: list[float] = []
    clock = CLOCK
    for index in range(runs // 10 + runs):
        start = clock()
        store = SessionStore.open(path)
        opened = clock()
        store.branch(middle)
        store.context()
        end = clock()
        del store
        if index >= runs // 10:
            opens.append((opened - start) * 1000)
            visits.append((end - opened) * 1000)
    return {"freshOpen": opens, "freshFirst": visits}


def summed(result: dict[str, list[float]]) -> list[float]:
    """Open + first visit, per open."""
    return [a + b for a, b in zip(result["freshOpen"], result["freshFirst"], strict=True)]


def spread(times: list[float]) -> str:
    """Median with the 10th-90th percentile range, in ms."""
    deciles = statistics.quantiles(times, n=10)
    return f"{statistics.median(times):.4f} ({deciles[0]:.4f}-{deciles[-1]:.4f})"


def main() -> int:
    rounds_override = int(sys.argv[1]) if len(sys.argv) > 1 else None
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(
        f"branch + context, ms (warm rows wall clock, open / first-visit rows {clock} clock): "
        "median (p10-p90); ratio = pi_lsp / pi of the medians"
    )
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for name, rounds in FILES.items():
            rounds = rounds_override or rounds
            path = plain_copy(name, scratch)
            pi = pi_rounds(path, rounds, scratch, fresh=FRESH_RUNS[name])
            ours = pi_lsp_rounds(path, rounds)
            fresh = fresh_rounds(path, FRESH_RUNS[name])
            print(f"{name} ({pi['entries']} entries, {rounds} rounds, {FRESH_RUNS[name]} opens)")
            rows = (
                ("to the middle + context", ours["toMiddle"], pi["toMiddle"], True),
                ("back to the leaf + context", ours["toLeaf"], pi["toLeaf"], True),
                ("open", fresh["freshOpen"], pi["freshOpen"], True),
                ("first to the middle + context", fresh["freshFirst"], pi["freshFirst"], True),
                ("first to the middle vs pi warm", fresh["freshFirst"], pi["toMiddle"], False),
                ("open + first to the middle", summed(fresh), summed(pi), True),
            )
            for label, mine, theirs, reported in rows:
                if not reported and clock != "wall":
                    continue  # fresh rows on the CPU clock, warm ones on the wall: no ratio
                ratio = statistics.median(mine) / statistics.median(theirs)
                print(
                    f"  {label:31s} pi_lsp {spread(mine):28s} pi {spread(theirs):28s} "
                    f"ratio {ratio:.3f}"
                )
                if reported:  # the "vs pi warm" row repeats figures reported above
                    report(f"{name}: {label}, pi_lsp", statistics.median(mine), "ms")
                    report(f"{name}: {label}, pi 1.6.0", statistics.median(theirs), "ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

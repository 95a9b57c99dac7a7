"""Session store benchmark (issue 2): pi_lsp vs pi v0.58.3's figures on the same files.

Run: ``.venv/bin/python bench/bench_sessions.py`` (or ``make bench``). In-process, median of 9
runs after a warm-up. pi's numbers come from the issue's benchmark note (Node 20, same machine
kind); ratios below 1 mean pi_lsp is faster.
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SESSIONS, median_ms, plain_copy, report
from pi_lsp.devtools.builders import assistant, usage, user
from pi_lsp.session import SessionStore
from pi_lsp.session.listing import SessionLister

PI_MS = {
    "open": 208.5,
    "context": 32.5,
    "turn": 33.0,
    "branch": 12.5,
    "list_cold": 1170.0,
}
"""pi v0.58.3 medians from the issue note (ranges given there: their middle)."""

USER = user("next step please")
REPLY = assistant("Done: edited src/app.py and ran the tests.", usage_of=usage(100, 20))


def cold_context_ms(path: Path, runs: int = 9) -> float:
    """Context at the leaf of a freshly opened store (the open itself not timed)."""
    times = []
    for _ in range(runs + 1):
        store = SessionStore.open(path)
        start = time.perf_counter()
        store.context()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def bench_file(path: Path) -> dict[str, float]:
    results = {"open": median_ms(lambda: SessionStore.open(path))}
    results["open+context"] = median_ms(lambda: SessionStore.open(path).context())
    results["context"] = cold_context_ms(path)
    store = SessionStore.open(path)

    def turn() -> None:
        store.append_message(USER)
        store.append_message(REPLY)
        store.context()

    store.context()
    results["turn"] = median_ms(turn, runs=51, warmup=3)
    records = store.records
    middle = records[len(records) // 2].id
    leaf = store.leaf_id
    assert leaf is not None

    def branch() -> None:
        store.branch(middle)
        store.context()
        store.branch(leaf)
        store.context()  # back to the leaf; measured separately below

    def branch_back() -> None:
        store.branch(leaf)
        store.context()

    results["branch"] = median_ms(branch) - median_ms(branch_back)
    return results


def memory_growth(path: Path) -> tuple[float, float]:
    """(RSS growth in MB after open + context, file size in MB), in a fresh process."""
    code = (
        "import sys, gc; sys.path.insert(0, sys.argv[2]); from bench.common import rss_bytes; "
        "from pi_lsp.session import SessionStore; gc.collect(); before = rss_bytes(); "
        "s = SessionStore.open(sys.argv[1]); s.context(); gc.collect(); "
        "print(rss_bytes() - before)"
    )
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), root], capture_output=True, text=True
    )
    return int(out.stdout) / 1e6, path.stat().st_size / 1e6


def bench_listing(tmp: Path) -> dict[str, float]:
    folder = tmp / "many"
    folder.mkdir()
    corpus = sorted(p for p in SESSIONS.glob("*.jsonl"))
    total = 0
    for i in range(1000):
        source = corpus[i % len(corpus)]
        target = folder / f"{i:04d}-{source.name}"
        target.write_bytes(source.read_bytes())
        total += target.stat().st_size
    cold = median_ms(lambda: SessionLister().list_dir(folder), runs=7)
    lister = SessionLister()
    lister.list_dir(folder)
    warm = median_ms(lambda: lister.list_dir(folder), runs=7)
    return {"list_cold": cold, "list_warm": warm, "list_mb": total / 1e6}


def main() -> None:
    gc.collect()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        print("file                         entries   open  +ctx  ctx(leaf)  turn   branch+ctx")
        big: dict[str, float] = {}
        for name in ("bench-large-20k", "fixture-before-compaction", "fixture-large-session"):
            path = plain_copy(name, tmp)
            entries = SessionStore.open(path).entry_count
            r = bench_file(path)
            if name == "bench-large-20k":
                big = r
            for key, value in r.items():
                report(f"{name}: {key}", value, "ms")
            print(
                f"{name:28s} {entries:7d} {r['open']:6.1f} {r['open+context']:6.1f} "
                f"{r['context']:8.2f} {r['turn']:7.3f} {r['branch']:8.2f}   (ms)"
            )
        grown, size = memory_growth(plain_copy("bench-large-20k", tmp))
        listing = bench_listing(tmp)
    report("bench-large-20k: memory growth after open + context", grown, "MB")
    report("list 1000 files, cold", listing["list_cold"], "ms")
    report("list 1000 files, nothing changed", listing["list_warm"], "ms")
    print()
    print("bench-large-20k vs pi v0.58.3 (ratio = pi_lsp / pi)")
    open_ctx_pi = PI_MS["open"] + PI_MS["context"]
    rows = [
        ("open (parse + index)", big["open"], PI_MS["open"]),
        ("open + context", big["open+context"], open_ctx_pi),
        ("context at leaf", big["context"], PI_MS["context"]),
        ("one turn (2 appends + context)", big["turn"], PI_MS["turn"]),
        ("branch to middle + context", big["branch"], PI_MS["branch"]),
        (
            f"list 1000 files ({listing['list_mb']:.0f} MB), cold",
            listing["list_cold"],
            PI_MS["list_cold"],
        ),
        ("list 1000 files, nothing changed", listing["list_warm"], PI_MS["list_cold"]),
    ]
    for label, ours, theirs in rows:
        print(f"  {label:40s} {ours:9.3f} ms   pi {theirs:8.1f} ms   ratio {ours / theirs:6.3f}")
    print(
        f"  memory growth after open + context: {grown:.1f} MB for a {size:.1f} MB file "
        f"({grown / size:.2f}x; target <= 3x; pi heap growth 14 MiB)"
    )


if __name__ == "__main__":
    main()

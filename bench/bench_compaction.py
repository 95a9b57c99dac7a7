"""Compaction benchmark (issue 4): preparation, incremental re-estimate, tiktoken throughput.

Run: ``.venv/bin/python bench/bench_compaction.py``. In-process, on the
corpus's ``bench-large-20k`` (22,002 entries, decompressed to a temporary file) and the two
``fixture-*`` sessions; median of 9 runs after a warm-up (throughput: best of 7). pi 1.6.0's own
preparation (``getBranch`` + ``prepareCompaction``, ``bench/pi_compaction.mjs``) is timed on
bench-large-20k when ``make pi16`` installed it.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_branch import pi_rounds
from bench.common import median_ms, plain_copy, report
from pi_lsp.compaction import (
    CHARS4,
    CompactionSettings,
    Estimator,
    TiktokenEstimator,
    TokenCounter,
    compaction_window,
    prepare_compaction,
)
from pi_lsp.compaction.prepare import cut_run
from pi_lsp.session import SessionStore
from pi_lsp.session.runs import context_bounds, window_run
from tests.interop.pi16 import PI16_DIR

ROOT = Path(__file__).resolve().parents[1]
PI_PREPARE_MS = 0.5
"""pi v0.58.3's ``prepareCompaction`` on bench-large-20k (the issue's note, Node 20)."""
SETTINGS = CompactionSettings()
USER = {
    "role": "user",
    "content": [{"type": "text", "text": "and now the next step"}],
    "timestamp": 1,
}


def bench_prepare(store: SessionStore) -> dict[str, float]:
    """Cut point and preparation on the leaf's path (the path itself timed separately).

    The cold cut point is :func:`cut_run` over the run a preparation reads (the projection of
    the path's context laid flat), as ``prepare_compaction`` calls it; ``find_cut_point``, its
    entry point for lists of projected entries (the conformance tests'), lays its input flat
    first.
    """
    path = store.branch_path()
    begin, at = context_bounds(path)
    run = window_run(path[begin:], at - begin if at >= 0 else -1)
    start = 1 if run.after and run.ends[1] else 0  # as prepare_run does
    end = len(run.records)
    warm = TokenCounter(CHARS4)
    prep = prepare_compaction(path, SETTINGS, warm)
    assert prep is not None

    def window_prepare() -> None:
        prepare_compaction(compaction_window(store), SETTINGS, warm)

    def cold_cut() -> None:
        cut_run(run, start, end, 20000, partial(TokenCounter(CHARS4).count_run, run))

    return {
        "branch_path": median_ms(store.branch_path),
        "window": float(len(compaction_window(store))),
        "cut_cold": median_ms(cold_cut),
        "prepare_cold": median_ms(lambda: prepare_compaction(path, SETTINGS, TokenCounter(CHARS4))),
        "prepare_warm": median_ms(lambda: prepare_compaction(path, SETTINGS, warm)),
        "window_prepare": median_ms(window_prepare),
        "path_len": float(len(path)),
        "summarized": float(len(prep.messages_to_summarize)),
        "d2": float(prep.previous_kept_count),
    }


def bench_one_more_entry(
    store: SessionStore, counter: TokenCounter, runs: int = 25
) -> dict[str, float]:
    """Append a user message (not timed), then time context + estimate, and estimate alone."""
    counter.estimate(store.context())  # warm-up: every entry of the context counted once
    with_context, estimate_only = [], []
    for _ in range(runs + 2):
        store.append_message(USER)
        begin = time.perf_counter()
        context = store.context()
        middle = time.perf_counter()
        counter.estimate(context)
        done = time.perf_counter()
        with_context.append((done - begin) * 1000)
        estimate_only.append((done - middle) * 1000)
    return {
        "context+estimate": statistics.median(with_context[2:]),
        "estimate": statistics.median(estimate_only[2:]),
        "context_messages": float(len(store.context().messages)),
    }


def session_text(store: SessionStore) -> str:
    """All text the estimators measure in the session, one message per line."""
    from pi_lsp.compaction.tokens import countable

    pieces = []
    for record in store.records:
        if record.type == "message":
            texts, _ = countable(record.value["message"])
            pieces.extend(texts)
    return "\n".join(pieces)


def load_ms(name: str) -> float:
    """Time to load an encoding in a fresh process (offline, from litellm's files)."""
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[2]); "
        "from pi_lsp.compaction.tokens import get_encoding; "
        "t = time.perf_counter(); get_encoding(sys.argv[1]); print(time.perf_counter() - t)"
    )
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", code, name, root], capture_output=True, text=True)
    return float(done.stdout) * 1000


def bench_tiktoken(text: str, store: SessionStore) -> dict[str, dict[str, float]]:
    from pi_lsp.compaction.tokens import get_encoding

    size_mb = len(text.encode("utf-8")) / 1e6
    messages = [r.value["message"] for r in store.records if r.type == "message"]
    out = {}
    for name in ("o200k_base", "cl100k_base"):
        encode = get_encoding(name).encode_ordinary
        encode("warm up")
        best = min(_timed(partial(encode, text)) for _ in range(7))
        estimator = TiktokenEstimator(name)
        every = min(_timed(partial(_count_all, estimator, messages)) for _ in range(3))
        out[name] = {
            "load_ms": load_ms(name),
            "mb_s": size_mb / best,
            "messages_s": len(messages) / every,
            "session_ms": every * 1000,
        }
    return out


def _count_all(estimator: TiktokenEstimator, messages: list[dict[str, Any]]) -> None:
    for message in messages:
        estimator(message)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        print("prepareCompaction (chars4, default settings), ms; cold = no cached counts")
        print(
            "file                          path  window  summarized (D2)  branch_path"
            "  cut(cold)  prepare(cold)  prepare(warm)  window+prepare(warm)"
        )
        big: dict[str, float] = {}
        for name in ("bench-large-20k", "fixture-before-compaction", "fixture-large-session"):
            store = SessionStore.open(plain_copy(name, tmp))
            r = bench_prepare(store)
            big = big or r
            print(
                f"{name:28s} {r['path_len']:5.0f} {r['window']:7.0f} {r['summarized']:7.0f}"
                f" ({r['d2']:4.0f}) {r['branch_path']:12.3f} {r['cut_cold']:10.3f}"
                f" {r['prepare_cold']:14.3f} {r['prepare_warm']:14.3f}"
                f" {r['window_prepare']:20.3f}"
            )
            for key in (
                "branch_path",
                "cut_cold",
                "prepare_cold",
                "prepare_warm",
                "window_prepare",
            ):
                report(f"{name}: {key}", r[key], "ms")
        for key in ("prepare_cold", "prepare_warm", "window_prepare"):
            ratio = big[key] / PI_PREPARE_MS
            print(f"  bench-large-20k {key} vs pi v0.58.3's {PI_PREPARE_MS} ms: ratio {ratio:.2f}")
        if not (PI16_DIR / "READY").is_file():
            print("  pi 1.6.0 is not installed (make pi16): its preparation is not timed")
        else:
            pi = pi_rounds(tmp / "bench-large-20k.jsonl", 30, tmp, "pi_compaction.mjs")
            branch, prepare = statistics.median(pi["branch"]), statistics.median(pi["prepare"])
            ours = big["branch_path"] + big["prepare_warm"]
            report(
                "bench-large-20k: pi 1.6.0 getBranch + prepareCompaction", branch + prepare, "ms"
            )
            print(
                f"  pi 1.6.0 ({pi['summarized']} to summarize): getBranch {branch:.3f}"
                f" + prepareCompaction {prepare:.3f} ms; pi_lsp branch_path + prepare(warm)"
                f" {ours:.3f} ms (ratio {ours / (branch + prepare):.3f}),"
                f" window+prepare {big['window_prepare']:.3f} ms"
                f" (ratio {big['window_prepare'] / (branch + prepare):.3f})"
            )
        print()
        print("one more entry re-estimated on bench-large-20k (append not timed), ms")
        estimators: list[tuple[str, Estimator]] = [
            ("chars4", CHARS4),
            ("tiktoken o200k", TiktokenEstimator("o200k_base")),
        ]
        for label, estimator in estimators:
            store = SessionStore.open(plain_copy("bench-large-20k", tmp))
            r = bench_one_more_entry(store, TokenCounter(estimator))
            report(f"one more entry, {label}: estimate", r["estimate"], "ms")
            report(f"one more entry, {label}: context+estimate", r["context+estimate"], "ms")
            print(
                f"  {label:16s} estimate {r['estimate']:.4f}"
                f"   context+estimate {r['context+estimate']:.4f}"
                f"   ({r['context_messages']:.0f} context messages; target <= 0.2)"
            )
        print()
        store = SessionStore.open(plain_copy("bench-large-20k", tmp))
        text = session_text(store)
        size = len(text.encode()) / 1e6
        print(f"tiktoken on the measured text of bench-large-20k ({size:.1f} MB UTF-8)")
        for name, r in bench_tiktoken(text, store).items():
            report(f"tiktoken {name}: load", r["load_ms"], "ms")
            report(f"tiktoken {name}: encode_ordinary", r["mb_s"], "MB/s")
            report(f"tiktoken {name}: every message", r["session_ms"], "ms")
            print(
                f"  {name:12s} load {r['load_ms']:6.1f} ms   encode_ordinary {r['mb_s']:6.1f} MB/s"
                f"   every message {r['session_ms']:7.1f} ms ({r['messages_s']:,.0f} messages/s)"
            )


if __name__ == "__main__":
    main()

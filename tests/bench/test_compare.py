"""bench/compare.py's reading and pairing of benchmark output, on outputs recorded from the scripts."""

from __future__ import annotations

import pytest

from bench.common import report
from bench.compare import (
    Row,
    backport_clock,
    compare,
    parse_reported,
    parse_table,
    render,
)

TYPES_RUN = """\
validate user + assistant message: 3.33 µs
one streamed text chunk (builder + message_update): 0.90 µs
#measure {"name": "validate user + assistant message", "value": 3.329415799999999, "unit": "µs"}
#measure {"name": "one streamed text chunk", "value": 0.8962720000000313, "unit": "µs"}
"""
"""``PI_LSP_BENCH_REPORT=1 PI_LSP_BENCH_CLOCK=cpu .venv/bin/python bench/bench_types.py``."""

SESSIONS_RUN = """\
file                         entries   open  +ctx  ctx(leaf)  turn   branch+ctx
bench-large-20k                22002  132.5  155.2    17.60   0.220     3.80   (ms)
fixture-large-session           1529   42.6   45.0     2.10   0.210     0.70   (ms)

bench-large-20k vs pi v0.58.3 (ratio = pi_lsp / pi)
  list 1000 files (118 MB), cold             1031.000 ms   pi   1170.0 ms   ratio  0.881
  memory growth after open + context: 23.1 MB for a 10.6 MB file (2.18x; target <= 3x; pi heap growth 14 MiB)
"""
"""The human table of ``bench/bench_sessions.py`` from before ``report`` (no ``#measure`` lines)."""


def test_reported_lines_are_read_by_name() -> None:
    found = parse_reported(TYPES_RUN)
    assert list(found) == ["validate user + assistant message", "one streamed text chunk"]
    assert found["one streamed text chunk"].value == pytest.approx(0.896272)
    assert found["one streamed text chunk"].unit == "µs"


def test_report_prints_only_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PI_LSP_BENCH_REPORT", raising=False)
    report("open", 1.5, "ms")
    assert capsys.readouterr().out == ""
    monkeypatch.setenv("PI_LSP_BENCH_REPORT", "1")
    report("open", 1.5, "ms")
    assert parse_reported(capsys.readouterr().out)["open"].value == 1.5


def test_table_numbers_are_named_by_their_line() -> None:
    found = parse_table(SESSIONS_RUN)
    assert found["bench-large-20k # {} # # # # (ms)"].value == 132.5
    assert found["bench-large-20k # # # # # {} (ms)"].value == 3.8
    assert found["fixture-large-session {} # # # # # (ms)"].value == 1529
    cold = found["list # files (# MB), cold {} ms pi # ms ratio #"]
    assert (cold.value, cold.unit) == (1031.0, "ms")
    # "20k", "v0.58.3", "ctx(leaf)" and "p10" are words, not figures
    assert not any(name.startswith("bench-large-#") for name in found)
    assert "bench-large-20k vs pi v0.58.3 (ratio = pi_lsp / pi)" not in " ".join(found)
    growth = found[
        "memory growth after open + context: {} MB for a # MB file (#x; target <= #x; pi heap growth # MiB)"
    ]
    assert (growth.value, growth.unit) == (23.1, "MB")


def test_table_reading_skips_reported_lines_and_numbers_repeated_lines() -> None:
    text = "first token: 1.5 ms\nfirst token: 2.5 ms\n" + TYPES_RUN
    found = parse_table(text)
    assert found["first token: {} ms"].value == 1.5
    assert found["first token: {} ms (2)"].value == 2.5
    assert not any("measure" in name for name in found)


def test_ranges_and_signs() -> None:
    found = parse_table("to the middle pi_lsp 0.0027 (0.0026-0.0028) added -0.3 ms, +3.4 ms")
    assert [m.value for m in found.values()] == [0.0027, 0.0026, 0.0028, -0.3, 3.4]


def test_compare_pairs_reported_figures_and_leaves_out_constants() -> None:
    before = [TYPES_RUN, TYPES_RUN.replace("3.329415799999999", "4.0")]
    after = [TYPES_RUN.replace("3.329415799999999", "2.0")] * 2
    result = compare("types", before, after)
    assert result.source == "report"
    assert result.constant == 1  # the chunk figure is the same in every run
    [row] = result.rows
    assert row.name == "validate user + assistant message"
    assert row.before == [pytest.approx(3.3294158), 4.0]
    assert row.after == [2.0, 2.0]
    assert row.ratio == pytest.approx(2.0 / ((3.3294158 + 4.0) / 2))
    table = render([result])
    assert (
        "| types | validate user + assistant message | 3.665 µs (3.329-4) | 2 µs (2-2) | 0.55 "
        "| faster |" in table
    )
    assert "types: 1 figures equal in every run left out" in table


def test_compare_reads_tables_when_one_side_has_no_reported_lines() -> None:
    after = (
        SESSIONS_RUN.replace("132.5", "66.0") + '#measure {"name": "x", "value": 1, "unit": "ms"}\n'
    )
    result = compare("sessions", [SESSIONS_RUN], [after])
    assert result.source == "table"
    [row] = result.rows
    assert row.name == "bench-large-20k # {} # # # # (ms)"
    assert row.ratio == pytest.approx(66.0 / 132.5)
    assert "read from the human output" in render([result])


def test_figures_only_on_one_side_are_named() -> None:
    after = TYPES_RUN + '#measure {"name": "new figure", "value": 1, "unit": "ms"}\n'
    result = compare("types", [TYPES_RUN], [after])
    assert result.only_after == ["new figure"]
    assert result.only_before == []
    assert "types: 1 figures only after: ['new figure']" in render([result])


OLD_COMMON = """\
import os
import statistics
import time
from pathlib import Path

SESSIONS = Path("sessions")


def median_ms(fn, runs=9, warmup=1):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)
"""
"""The shape of ``bench/common.py`` at ``16a6210``, before ``PI_LSP_BENCH_CLOCK``."""


def test_an_old_median_ms_is_given_the_cpu_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    source = backport_clock(OLD_COMMON)
    assert source is not None
    assert "time.perf_counter()" not in source
    assert source.count("CLOCK()") == 2
    for setting, clock in (("cpu", "process_time"), ("wall", "perf_counter")):
        monkeypatch.setenv("PI_LSP_BENCH_CLOCK", setting)
        namespace: dict[str, object] = {}
        exec(compile(source, "common.py", "exec"), namespace)
        assert namespace["CLOCK"].__name__ == clock  # type: ignore[attr-defined]
        assert namespace["median_ms"](lambda: None) >= 0  # type: ignore[operator]


def test_a_common_with_the_clock_or_of_another_shape_is_left_alone() -> None:
    assert backport_clock(OLD_COMMON.replace("SESSIONS", "PI_LSP_BENCH_CLOCK")) is None
    assert backport_clock(OLD_COMMON.replace("def median_ms", "def timed")) is None
    assert backport_clock(OLD_COMMON.replace("import os\n", "")) is None


@pytest.mark.parametrize(
    ("unit", "after", "verdict"),
    [
        ("ms", [3.0, 5.0], "same"),  # overlaps the before range 2-4
        ("ms", [4.5, 6.0], "slower"),
        ("µs", [1.0, 1.5], "faster"),
        ("MB/s", [4.5, 6.0], "faster"),
        ("MB", [4.5, 6.0], "higher"),
        ("", [1.0, 1.5], "lower"),
    ],
)
def test_the_verdict_needs_ranges_apart(unit: str, after: list[float], verdict: str) -> None:
    row = Row("s", "m", unit, before=[2.0, 4.0], after=after)
    assert row.verdict == verdict

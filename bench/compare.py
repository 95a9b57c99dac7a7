"""Before and after in one run: benchmark scripts from a git revision and from this tree, alternately.

Run: ``python -m bench.compare REV [NAME ...] [--after REV2] [--runs 3] [--clock cpu|wall]
[--extra ARGS]`` (or ``make bench-compare REV=… [BENCH="sessions types"] [RUNS=3]``). ``REV`` (and
``REV2``, else this working tree is "after") is exported with ``git archive`` into a temporary
folder; each chosen ``bench/bench_NAME.py`` (default: every script both
trees have) then runs ``--runs`` times from each tree, the two trees alternating (before first in
odd rounds, after first in even ones), each run a fresh process of this virtualenv with
``PYTHONPATH`` and the working folder set to its tree, so every tree measures itself with its own
script. ``--clock cpu`` (the default) sets ``PI_LSP_BENCH_CLOCK=cpu`` where both trees' scripts
offer it, which makes the in-process figures comparable while other work shares the machine; an
exported revision older than that switch gets it in its ``median_ms`` (:func:`backport_clock`).

Figures are read from the ``#measure`` lines of :func:`bench.common.report` when both trees print
them; otherwise (scripts older than ``report``) from every number of the human output, each named
by its line with the numbers blanked (``{}`` marks the one measured), so a line must read the same
in both trees to pair up. Figures equal in every run of both trees (counts, settings) are left out.
The result is a Markdown table (medians, min-max, after / before, and a verdict: ``same`` when the
min-max ranges overlap, else faster / slower) with the load average, to paste into
``docs/benchmarks.md``. Writes nothing outside the temporary folder, which it removes, but the
runs' outputs with ``--keep DIR`` (to read the figures that did not pair).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import CORPUS, MEASURE_PREFIX, ROOT

NUMBER = re.compile(
    r"(?<![\w.])(?P<num>[+\-−]?\d+(?:,\d{3})*(?:\.\d+)?)"
    r"(?:\s?(?P<unit>ms|µs|us|s|MB|MiB|kB|KB|GB|B|x|×|%|MB/s)(?![\w/]))?(?![\w.])"
)
"""A number in a human table, with the unit written right after it if any (``12.5 ms``, ``0.64×``)."""


@dataclass(frozen=True)
class Measure:
    """One figure of one run: its stable name, value and unit."""

    name: str
    value: float
    unit: str


def parse_reported(text: str) -> dict[str, Measure]:
    """The measures of the ``#measure`` lines in a script's output (a repeated name: the last)."""
    found: dict[str, Measure] = {}
    for line in text.splitlines():
        if line.startswith(MEASURE_PREFIX):
            data = json.loads(line.removeprefix(MEASURE_PREFIX))
            found[data["name"]] = Measure(data["name"], float(data["value"]), str(data["unit"]))
    return found


def parse_table(text: str) -> dict[str, Measure]:
    """Every number of the human output (``#measure`` lines skipped), named by its line's template.

    The template is the line with each number replaced by ``#`` and the measured one by ``{}``; a
    template seen again in the same output gets `` (2)``, `` (3)``… so the order of the lines pairs
    the runs.
    """
    found: dict[str, Measure] = {}
    seen: dict[str, int] = {}
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if line.startswith(MEASURE_PREFIX):
            continue
        matches = list(NUMBER.finditer(line))
        if not matches:
            continue
        starts = [match.start("num") for match in matches]
        ends = [0, *(match.end("num") for match in matches)]
        pieces = [line[end:start] for end, start in zip(ends, starts, strict=False)]
        pieces.append(line[ends[-1] :])
        template = "\0".join(pieces)
        seen[template] = seen.get(template, 0) + 1
        suffix = f" ({seen[template]})" if seen[template] > 1 else ""
        for index, match in enumerate(matches):
            slots = ["#"] * len(matches)
            slots[index] = "{}"
            name = "".join(piece + slot for piece, slot in zip(pieces, [*slots, ""], strict=True))
            value = float(match.group("num").replace(",", "").replace("−", "-"))
            found[name + suffix] = Measure(name + suffix, value, match.group("unit") or "")
    return found


@dataclass
class Row:
    """One measure of one script across the runs of both trees."""

    script: str
    name: str
    unit: str
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """Median after / median before (None when before is 0)."""
        before = statistics.median(self.before)
        return statistics.median(self.after) / before if before else None

    @property
    def verdict(self) -> str:
        """``same`` when the two sides' min-max ranges overlap; else which way ``after`` moved:
        ``faster`` / ``slower`` for times and throughputs, ``higher`` / ``lower`` otherwise."""
        if min(self.after) > max(self.before):
            moved = "higher"
        elif max(self.after) < min(self.before):
            moved = "lower"
        else:
            return "same"
        if self.unit in TIMES:
            return {"higher": "slower", "lower": "faster"}[moved]
        if self.unit in RATES:
            return {"higher": "faster", "lower": "slower"}[moved]
        return moved


TIMES = frozenset({"ms", "µs", "us", "s"})
RATES = frozenset({"MB/s"})


@dataclass
class Comparison:
    """What one script's runs gave: the rows, and what could not be paired."""

    script: str
    rows: list[Row]
    source: str
    """``report`` (``#measure`` lines on both sides) or ``table`` (numbers of the human output)."""
    constant: int = 0
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)


def compare(script: str, before: Sequence[str], after: Sequence[str]) -> Comparison:
    """Pair the figures of ``before``'s and ``after``'s outputs (one text per run) by name."""
    reported = all(MEASURE_PREFIX in text for text in [*before, *after])
    parse = parse_reported if reported else parse_table
    runs_before = [parse(text) for text in before]
    runs_after = [parse(text) for text in after]
    names_before = _common(runs_before)
    names_after = _common(runs_after)
    result = Comparison(script, [], "report" if reported else "table")
    for name in [n for n in names_before if n in names_after]:
        row = Row(script, name, runs_after[0][name].unit)
        row.before = [run[name].value for run in runs_before]
        row.after = [run[name].value for run in runs_after]
        if len({*row.before, *row.after}) == 1:
            result.constant += 1
        else:
            result.rows.append(row)
    result.only_before = [n for n in names_before if n not in names_after]
    result.only_after = [n for n in names_after if n not in names_before]
    return result


def _common(runs: Iterable[dict[str, Measure]]) -> list[str]:
    """The names every run has, in the first run's order."""
    runs = list(runs)
    if not runs:
        return []
    return [name for name in runs[0] if all(name in run for run in runs[1:])]


def _figure(values: list[float], unit: str) -> str:
    median = statistics.median(values)
    shown = f"{median:.4g} {unit}".strip()
    if len(values) > 1:
        shown += f" ({min(values):.4g}-{max(values):.4g})"
    return shown


def render(comparisons: Sequence[Comparison]) -> str:
    """A Markdown table of every row, then notes on what did not pair."""
    lines = [
        "| script | measure | before, median (min-max) | after, median (min-max) | after / before "
        "| verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    notes = []
    for item in comparisons:
        for row in item.rows:
            ratio = "–" if row.ratio is None else f"{row.ratio:.2f}"
            name = row.name.replace("|", "\\|")
            lines.append(
                f"| {row.script} | {name} | {_figure(row.before, row.unit)} | "
                f"{_figure(row.after, row.unit)} | {ratio} | {row.verdict} |"
            )
        if item.source == "table":
            notes.append(f"{item.script}: figures read from the human output (no #measure lines)")
        if item.constant:
            notes.append(f"{item.script}: {item.constant} figures equal in every run left out")
        for side, names in (("before", item.only_before), ("after", item.only_after)):
            if names:
                notes.append(f"{item.script}: {len(names)} figures only {side}: {names[:3]}")
    return "\n".join(lines + [""] + [f"- {note}" for note in notes])


def export(rev: str, directory: Path) -> str:
    """Extract ``rev`` into ``directory`` (``git archive``); its short commit id."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", f"{rev}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True)
    common = directory / "bench" / "common.py"
    if common.is_file():
        backported = backport_clock(common.read_text())
        if backported is not None:
            common.write_text(backported)
            print(f"{commit}: bench/common.py given the CPU clock (median_ms)", file=sys.stderr)
    compile_tree(directory)
    return commit


OLD_CLOCK = "time.perf_counter()"
CLOCK_DEFINITION = (
    '\n\nCLOCK = time.process_time if os.environ.get("PI_LSP_BENCH_CLOCK") == "cpu"'
    " else time.perf_counter\n"
)


def backport_clock(source: str) -> str | None:
    """``source`` (a ``bench/common.py`` older than ``PI_LSP_BENCH_CLOCK``) with ``median_ms``
    timing through the same ``CLOCK`` as today's, or None when it has the clock already or does
    not look like the file this expects.

    Only the timer changes (wall time stays the default): what ``median_ms`` measures, and every
    figure a script times itself, stay as the revision wrote them, so an old revision's
    in-process figures can be compared on the CPU clock while other work loads the machine.
    """
    if "PI_LSP_BENCH_CLOCK" in source or "def median_ms" not in source:
        return None
    head, _, body = source.partition("def median_ms")
    if OLD_CLOCK not in body or "import time" not in head or "import os" not in head:
        return None
    head = head.rstrip("\n") + CLOCK_DEFINITION + "\n\n"
    return head + "def median_ms" + body.replace(OLD_CLOCK, "CLOCK()")


def compile_tree(tree: Path) -> None:
    """Byte-compile ``tree``'s Python files, so that no run pays for it (``PYTHONDONTWRITEBYTECODE``
    would otherwise make every run of an uncompiled tree compile its imports again)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "pi_lsp", "bench", "tests"],
        cwd=tree,
        check=False,
    )


def tree_env(tree: Path, clock: str) -> dict[str, str]:
    """The environment one run from ``tree`` gets."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PI_LSP_BENCH_REPORT": "1"}
    env["PI_LSP_CONFORMANCE_DIR"] = str(CORPUS.resolve())
    if clock == "cpu":
        env["PI_LSP_BENCH_CLOCK"] = "cpu"
    else:
        env.pop("PI_LSP_BENCH_CLOCK", None)
    return env


def check_imports(tree: Path, env: dict[str, str]) -> None:
    """Fail unless a run from ``tree`` imports that tree's ``pi_lsp`` and ``bench``."""
    code = "import bench, pi_lsp; print(bench.__file__); print(pi_lsp.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    if not all(Path(path).resolve().is_relative_to(tree.resolve()) for path in out):
        raise SystemExit(f"a run from {tree} imports {out}: PYTHONPATH does not win")


def run_once(tree: Path, script: str, extra: list[str], env: dict[str, str], timeout: float) -> str:
    """One run's standard output; a failure raises with the end of its standard error."""
    done = subprocess.run(
        [sys.executable, f"bench/bench_{script}.py", *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"bench_{script}.py in {tree} exited {done.returncode}:\n{tail}")
    return done.stdout


def scripts_of(tree: Path) -> set[str]:
    """The ``bench_*.py`` names ``tree`` has."""
    return {path.stem.removeprefix("bench_") for path in (tree / "bench").glob("bench_*.py")}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare this tree against")
    parser.add_argument(
        "--after", help="a git revision to measure instead of this tree (exported the same way)"
    )
    parser.add_argument("names", nargs="*", help="scripts (bench_NAME.py); default: all in both")
    parser.add_argument("--runs", type=int, default=3, help="runs per tree (default 3)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--extra", default="", help="arguments for every script (one string)")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per run")
    parser.add_argument(
        "--keep", type=Path, help="a folder to keep every run's output in (NAME.SIDE.RUN.txt)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pi-lsp-compare-") as tmp:
        before_tree = Path(tmp) / "before"
        before_tree.mkdir()
        commit = export(args.rev, before_tree)
        after_tree, after_name = ROOT, f"this tree ({ROOT})"
        if args.after:
            after_tree = Path(tmp) / "after"
            after_tree.mkdir()
            after_name = f"{export(args.after, after_tree)} ({args.after})"
        trees = {"before": before_tree, "after": after_tree}
        if not args.after:
            compile_tree(ROOT)
        both = scripts_of(before_tree) & scripts_of(after_tree)
        names = args.names or sorted(both - {"nvim", "acp", "protocol", "tool_calls"})
        missing = [name for name in names if name not in both]
        if missing:
            print(f"not in both trees (left out): {', '.join(missing)}")
        clock = args.clock
        without = [
            side
            for side, tree in trees.items()
            if "PI_LSP_BENCH_CLOCK" not in (tree / "bench/common.py").read_text()
        ]
        if clock == "cpu" and without:
            print(f"the {' and '.join(without)} scripts have no CPU clock: both use wall time")
            clock = "wall"
        envs = {side: tree_env(tree, clock) for side, tree in trees.items()}
        for side, tree in trees.items():
            check_imports(tree, envs[side])
        load_start = os.getloadavg()
        comparisons = []
        for name in [n for n in names if n in both]:
            outputs: dict[str, list[str]] = {"before": [], "after": []}
            try:
                for round_ in range(args.runs):
                    order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
                    for side in order:
                        print(
                            f"bench_{name}.py, run {round_ + 1}, {side}",
                            file=sys.stderr,
                            flush=True,
                        )
                        outputs[side].append(
                            run_once(
                                trees[side], name, shlex.split(args.extra), envs[side], args.timeout
                            )
                        )
                        if args.keep:
                            args.keep.mkdir(parents=True, exist_ok=True)
                            kept = args.keep / f"{name}.{side}.{round_ + 1}.txt"
                            kept.write_text(outputs[side][-1])
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"bench_{name}.py left out: {error}")
                continue
            comparisons.append(compare(name, outputs["before"], outputs["after"]))
            print(render(comparisons[-1:]), file=sys.stderr, flush=True)  # kept if stopped later
        load_end = os.getloadavg()
    command = " ".join(["python -m bench.compare", *(argv if argv is not None else sys.argv[1:])])
    print(f"command: {command}")
    print(
        f"before: {commit} ({args.rev}); after: {after_name}; {args.runs} runs each, {clock} clock"
    )
    print(
        f"load average (1/5/15 min) at the start {' '.join(f'{v:.1f}' for v in load_start)}, "
        f"at the end {' '.join(f'{v:.1f}' for v in load_end)}, on {os.cpu_count()} CPUs"
    )
    print()
    print(render(comparisons))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark grep and find over a generated 10,000-file tree with .gitignore rules.

Run: ``python bench/bench_tools.py [--runs N]``. Prints the median (and min/max) wall time of
each case over N runs (default 9, at least 7). Writes nothing outside a temporary directory,
which it removes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import report
from pi_lsp.tools import ShellSettings, create_tools

DIRS = 100
FILES_PER_DIR = 100
BODY_LINES = 40


def build_tree(root: Path) -> int:
    """10,000 source files in 100 packages, a tenth of them ignored by root and nested rules."""
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    count = 0
    for d in range(DIRS):
        package = root / "src" / f"pkg{d:02d}"
        package.mkdir(parents=True)
        if d % 10 == 0:
            (package / ".gitignore").write_text("gen_*\n!gen_keep.py\n")
        for f in range(FILES_PER_DIR):
            name = f"mod{f:02d}.py" if f % 10 else f"gen_{f:02d}.py"
            lines = [f"def function_{d}_{f}_{i}(value):" for i in range(BODY_LINES // 2)]
            lines += [
                f"    return value + {d * FILES_PER_DIR + f + i}" for i in range(BODY_LINES // 2)
            ]
            (package / name).write_text("\n".join(lines) + "\n")
            count += 1
    build = root / "build"
    build.mkdir()
    for f in range(200):
        (build / f"out{f}.py").write_text("def function_ignored():\n    pass\n")
    return count


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("grep literal, no match", "grep", {"pattern": "no_such_identifier_anywhere", "literal": True}),
    ("grep regex, 1 match", "grep", {"pattern": r"return value \+ 4242$"}),
    ("grep regex, 100-match limit", "grep", {"pattern": r"def function_\d+_7_"}),
    (
        "grep --glob *.py, ignoreCase",
        "grep",
        {"pattern": "FUNCTION_99_99_0", "ignoreCase": True, "glob": "*.py"},
    ),
    ("find *.py (limit 1000)", "find", {"pattern": "*.py"}),
    ("find *.py (limit 20000)", "find", {"pattern": "*.py", "limit": 20000}),
    ("find src/**/mod9*.py", "find", {"pattern": "src/**/mod9*.py", "limit": 20000}),
]


async def measure(root: Path, runs: int) -> None:
    tools = create_tools(str(root), shell=ShellSettings(agent_dir=str(root / ".agent")))
    print(f"{'case':34} {'median':>9} {'min':>9} {'max':>9}  result")
    for label, name, args in CASES:
        times: list[float] = []
        first = ""
        for _ in range(runs):
            start = time.perf_counter()
            result = await tools[name].execute(args)
            times.append(time.perf_counter() - start)
            first = first or result.text.split("\n")[0][:40]
        report(label, statistics.median(times) * 1000, "ms")
        print(
            f"{label:34} {statistics.median(times) * 1000:8.1f}ms {min(times) * 1000:8.1f}ms "
            f"{max(times) * 1000:8.1f}ms  {first}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = max(7, parser.parse_args().runs)
    with tempfile.TemporaryDirectory(prefix="pi-lsp-bench-") as tmp:
        root = Path(tmp)
        files = build_tree(root)
        print(f"tree: {files} source files (+200 ignored in build/), {runs} runs per case")
        asyncio.run(measure(root, runs))


if __name__ == "__main__":
    main()

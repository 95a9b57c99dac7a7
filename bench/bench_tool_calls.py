"""Per-call cost of each built-in tool, this tree against a git ref, as ratios in one run.

Run: ``python bench/bench_tool_calls.py [--ref main] [--rounds 8]``. The ref's ``pi_lsp`` is
exported (``git archive``) to a temporary directory. Each round starts one worker process per
tree, in shuffled order; a worker times every case on a small generated project (300 files)
and reports the fastest of N calls, so the figures measure the tools' own code (argument
validation, path handling, error mapping, result building) rather than the disk. The table
shows the median over the rounds for each tree and their ratio. Writes nothing outside
temporary directories, which it removes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FAILING = "a validation error"
"""The one case that raises ``ToolError`` by design."""


async def _cases(tree: str) -> dict[str, float]:
    """Fastest call of each case, in µs, with ``tree``'s ``pi_lsp``."""
    sys.path.insert(0, tree)
    import pi_lsp
    from pi_lsp.tools import ShellSettings, create_tools

    if not str(pi_lsp.__file__).startswith(tree):
        raise RuntimeError(f"imported {pi_lsp.__file__}, not the tree {tree}")

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for i in range(300):
            (root / f"f{i:03d}.py").write_text("".join(f"line {j} value\n" for j in range(50)))
        (root / "big.txt").write_text("".join(f"row {j}\n" for j in range(3000)))
        (root / "e.py").write_text("a = 1\nb = 2\n")
        tools = create_tools(d, shell=ShellSettings(agent_dir=d, temp_dir=d))
        flip = [{"oldText": "a = 1", "newText": "a = 3"}, {"oldText": "a = 3", "newText": "a = 1"}]
        if "edits" in tools["edit"].params_model.model_fields:  # pi 1.6.0's edits list
            edits: list[dict[str, Any]] = [{"path": "e.py", "edits": [e]} for e in flip]
        else:  # trees before the pi 1.6.0 projection take one oldText / newText
            edits = [{"path": "e.py", **e} for e in flip]
        cases: list[tuple[str, str, Any, int]] = [
            ("ls, 303 entries", "ls", {}, 100),
            ("read, 3,000 lines", "read", {"path": "big.txt"}, 200),
            ("read with offset/limit", "read", {"path": "big.txt", "offset": 10, "limit": 5}, 200),
            ("edit (and back)", "edit", edits, 100),
            ("write 1 KB", "write", {"path": "w.txt", "content": "x" * 1000}, 200),
            ("find *.py", "find", {"pattern": "*.py"}, 50),
            ("grep, 1 match in 300 files", "grep", {"pattern": "line 7 value"}, 20),
            (FAILING, "read", {"offset": "x"}, 200),
        ]
        best: dict[str, float] = {}
        for label, name, args, calls in cases:
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                for one in args if isinstance(args, list) else [args]:
                    try:
                        await tools[name].execute(one)
                    except Exception as exc:  # only the validation case fails by design
                        if type(exc).__name__ != "ToolError" or label != FAILING:
                            raise  # a case that fails would time its error path
                times.append(time.perf_counter() - start)
            best[label] = min(times) * 1e6
        return best


def _export(ref: str, directory: Path) -> bool:
    archive = subprocess.run(["git", "archive", ref, "pi_lsp"], cwd=ROOT, capture_output=True)
    if archive.returncode != 0:
        return False
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(_cases(args.worker))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        if not _export(args.ref, Path(tmp)):
            sys.exit(f"cannot export git ref {args.ref!r}")
        trees = {"this tree": str(ROOT), args.ref: tmp}
        results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(max(1, args.rounds)):
            for name in random.sample(list(trees), len(trees)):
                worker = [sys.executable, __file__, "--worker", trees[name]]
                out = subprocess.run(worker, capture_output=True, text=True, check=True).stdout
                results[name].append(json.loads(out))
    print(f"median over {args.rounds} rounds of the fastest call, µs")
    print(f"{'case':30} {'this tree':>10} {args.ref:>10}  ratio")
    for case in results["this tree"][0]:
        ours = statistics.median(r[case] for r in results["this tree"])
        theirs = statistics.median(r[case] for r in results[args.ref])
        print(f"{case:30} {ours:10.0f} {theirs:10.0f}  {ours / theirs:.3f}")


if __name__ == "__main__":
    main()

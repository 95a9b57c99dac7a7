"""``pi/models/list`` cold and warm: litellm's import against the model list's cache file.

Run: ``.venv/bin/python bench/bench_models_list.py [--runs 3]``. Each run is a fresh process
(what a daemon start is) that has imported pi_lsp but not litellm, with ``OPENAI_API_KEY`` set
and the folder's settings empty; it times the list the daemon answers with
(``available_models``), then a second call in the same process (warm):

- ``import``: no cache file (an empty ``PI_LSP_CACHE_DIR``), so the list waits for litellm's
  import, as every first list did before the cache (and a first list of a new litellm still does);
- ``cache``: the cache file written by an earlier run, so litellm is never imported.

Wall time and the process's CPU time (all threads) are both printed; under load prefer CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, report

CHILD = """
import asyncio, json, sys, time
from pi_lsp.daemon.workspaces import available_models
from pi_lsp.agent import llm
from pi_lsp.settings import Settings

def timed():
    wall, cpu = time.perf_counter(), time.process_time()
    models = asyncio.run(available_models(Settings()))
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, len(models)

cold = timed()
warm = timed()
print(json.dumps({"cold": cold, "warm": warm, "imported": llm.is_loaded()}))
"""


@dataclass(frozen=True)
class Sample:
    """One fresh process: (wall ms, cpu ms) of the first and the second list."""

    cold: tuple[float, float]
    warm: tuple[float, float]
    models: int
    imported: bool


def run_child(cache: Path) -> Sample:
    env = {
        **os.environ,
        "PI_LSP_CACHE_DIR": str(cache),
        "OPENAI_API_KEY": "bench",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    cold, warm = data["cold"], data["warm"]
    return Sample(
        cold=(float(cold[0]), float(cold[1])),
        warm=(float(warm[0]), float(warm[1])),
        models=int(cold[2]),
        imported=bool(data["imported"]),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "3")))
    runs = parser.parse_args().runs
    samples: dict[str, list[Sample]] = {"import": [], "cache": []}
    with tempfile.TemporaryDirectory() as tmp:
        warm_cache = Path(tmp) / "kept"
        run_child(warm_cache)  # writes the cache file the "cache" runs read
        for index in range(runs):  # the two cases alternate, so load changes hit both
            samples["import"].append(run_child(Path(tmp) / f"empty-{index}"))
            samples["cache"].append(run_child(warm_cache))
    load = os.getloadavg()[0]
    print(f"pi/models/list, {runs} fresh processes each (median ms; load {load:.2f})")
    print("| case | cold wall | cold cpu | warm wall | warm cpu | models | litellm imported |")
    print("|---|---|---|---|---|---|---|")
    for case, results in samples.items():
        figures = {
            "cold wall": statistics.median(r.cold[0] for r in results),
            "cold cpu": statistics.median(r.cold[1] for r in results),
            "warm wall": statistics.median(r.warm[0] for r in results),
            "warm cpu": statistics.median(r.warm[1] for r in results),
        }
        imported = ", ".join(sorted({str(r.imported) for r in results}))
        cells = " | ".join(f"{value:.1f}" for value in figures.values())
        print(f"| {case} | {cells} | {results[0].models} | {imported} |")
        for name, value in figures.items():
            report(f"models list {case} {name}", value, "ms")


if __name__ == "__main__":
    main()

"""Run every ``bench/bench_*.py`` script in turn: ``python -m bench [name ...]``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    wanted = set(sys.argv[1:])
    status = 0
    for script in sorted(here.glob("bench_*.py")):
        if wanted and script.stem.removeprefix("bench_") not in wanted:
            continue
        print(f"== {script.name}", flush=True)
        status |= subprocess.run([sys.executable, str(script)], check=False).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())

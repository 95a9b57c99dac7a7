"""How long a test waits for something that should happen before it reports a hang.

These are failure bounds, never speed limits: when things work, every wait ends on its event
long before them, and a test's outcome does not depend on the machine's speed. They are
generous because the slowest honest step is slow on a busy machine: a daemon's first model
call imports litellm, about 6 s of CPU, which took 41 s of wall time at load 10 on two cores
(2026-12-02) and grows with the load. ``PI_LSP_TEST_HANG`` (seconds) changes them all, e.g. to
find a hang sooner while debugging.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

HANG = float(os.environ.get("PI_LSP_TEST_HANG", "300"))
"""Seconds after which a wait for an answer, an event or a process counts as a hang."""


def run_child(
    argv: Sequence[str],
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to its end with its output captured as text; a child still running after
    :data:`HANG` is a hang (``subprocess.TimeoutExpired``)."""
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=HANG, cwd=cwd, env=env, check=check
    )

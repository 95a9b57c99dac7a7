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

HANG = float(os.environ.get("PI_LSP_TEST_HANG", "300"))
"""Seconds after which a wait for an answer, an event or a process counts as a hang."""

"""The ACP wire module answers ``initialize`` before the heavy imports: its top is stdlib only."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_wire_loads_neither_the_sdk_nor_the_daemon() -> None:
    # A fresh interpreter: this test process has long imported both.
    code = (
        "import sys, pi_lsp.acp.server\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('acp', 'pydantic')"
        " or m.startswith(('pi_lsp.daemon', 'pi_lsp.acp.agent'))]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"

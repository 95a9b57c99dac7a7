"""The ACP package's own module answers ``initialize`` before the heavy imports."""

from __future__ import annotations

import ast
import subprocess
import sys


def test_importing_the_package_loads_neither_asyncio_nor_the_sdk_nor_the_daemon() -> None:
    # A fresh interpreter: this test process has long imported all of them. The CLI's own
    # imports (pi_lsp.cli) come first, as in `pi-lsp --acp`; only what the package adds counts.
    code = (
        "import sys, pi_lsp.cli\n"
        "before = set(sys.modules)\n"
        "import pi_lsp.acp\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    added = ast.literal_eval(out)
    assert [m for m in added if not m.startswith(("json", "_json"))] == ["pi_lsp.acp"]

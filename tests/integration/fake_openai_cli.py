"""The scripted OpenAI-compatible server's command line, run as a child process for a test."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def fake_openai_cli(script: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``python -m pi_lsp.devtools.fake_openai --script SCRIPT`` serving: its base URL and process.

    The base URL is the first line the command prints. On exit the process is terminated and
    waited for, so its ``returncode`` is then set.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_lsp.devtools.fake_openai", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), process
    finally:
        process.terminate()
        process.wait(30)

"""``make demo`` keeps working: the scripted session runs offline and tells its story."""

from __future__ import annotations

import sys

from tests.deadlines import run_child


def test_demo_runs_offline_and_shows_tree_compaction_and_usage() -> None:
    result = run_child([sys.executable, "-m", "pi_lsp.demo"])
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    for expected in (
        "daemon initialized in",
        "[editor] applied 1 change(s) from 'pi: edit' to calc.py, saved",
        "[editor] permission asked: bash",
        "→ read",
        "→ edit",
        "→ bash",
        "the request comes back for editing",
        "automatic compaction (threshold",
        "compaction done: summary written",
        "branch_summary:",
        "<- leaf",
        "[compaction]",
        "context usage:",
        "def multiply(a, b):",
        "requests went through litellm",
    ):
        assert expected in out, expected

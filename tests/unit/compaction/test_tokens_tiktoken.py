"""The tiktoken estimator: encoding per model, offline loading, no litellm import."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from pi_lsp.compaction import CHARS4, TiktokenEstimator, estimator_for
from pi_lsp.compaction.tokens import bundled_bpe_dir, encoding_name_for_model
from pi_lsp.devtools.builders import assistant, call, tool_result, user
from tests.deadlines import run_child

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("openai/gpt-4.1", "o200k_base"),
        ("gpt-5.1-codex", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gemini-2.5-pro", "cl100k_base"),
        (None, "cl100k_base"),
    ],
)
def test_encoding_follows_the_model(model: str | None, encoding: str) -> None:
    assert encoding_name_for_model(model) == encoding


def test_the_bpe_files_ship_with_litellm() -> None:
    folder = bundled_bpe_dir()
    assert folder is not None
    assert len(os.listdir(folder)) >= 2


def test_estimator_for_picks_kind_and_encoding() -> None:
    assert estimator_for("chars4", "gpt-4o") is CHARS4
    assert estimator_for("tiktoken", "gpt-4o").name == "tiktoken:o200k_base"
    assert estimator_for("tiktoken", "claude-opus-4-5").name == "tiktoken:cl100k_base"


def test_tiktoken_counts_the_same_text_as_chars4() -> None:
    estimate = TiktokenEstimator("cl100k_base")
    assert estimate(user("hello world")) == 2
    assert estimate(user("")) == 0
    result = tool_result("hello world")
    result["content"].append({"type": "image", "data": "AAAA", "mimeType": "image/png"})
    assert estimate(result) == 2 + 1200
    reply = assistant("hello", calls=[call("read", path="a.py")])
    assert estimate(reply) == 1 + len(
        estimate_encoding("cl100k_base").encode_ordinary('read{"path":"a.py"}')
    )
    # Special-token text is ordinary text here (encode() would raise on it).
    assert estimate(user("<|endoftext|>")) > 1


def estimate_encoding(name: str) -> object:
    from pi_lsp.compaction.tokens import get_encoding

    return get_encoding(name)


OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network disabled for this test")

    socket.socket.connect = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    from pi_lsp.compaction import TiktokenEstimator

    message = {"role": "user", "content": "def main():\\n    return 42\\n"}
    counts = [TiktokenEstimator(name)(message) for name in ("o200k_base", "cl100k_base")]
    assert all(count > 0 for count in counts), counts
    assert "litellm" not in sys.modules, "litellm was imported"
    print("ok", counts)
    """
)


def test_tiktoken_loads_offline_without_importing_litellm(tmp_path: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
    }
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(tmp_path)  # no cache of a previous download can help
    env["TMPDIR"] = str(tmp_path)
    done = run_child([sys.executable, "-c", OFFLINE_SCRIPT], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")

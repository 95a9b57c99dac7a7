"""Differential tests: generated session trees read by pi 1.6.0 and by pi_lsp.

For every generated file, at its leaf and at a random entry: the same context (messages,
thinking level, model), the same chars4 estimate per message, the same session name and the
same compaction plan (cut point, split turn, tokensBefore, previous summary, messages to
summarize, turn prefix, file operations). And a file pi_lsp writes through its store reads the
same in pi.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.session import SessionStore
from tests.interop.compare import ours, theirs
from tests.interop.pi16 import Oracle
from tests.interop.session_trees import TEXT, message, session_lines

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _compare(pi: Oracle, path: Path, leaf: str | None, keep: int) -> None:
    request: dict[str, Any] = {"file": str(path), "keepRecentTokens": keep}
    if leaf is not None:
        request["leafId"] = leaf
    assert ours(path, leaf, keep) == theirs(pi.ask(request))


@SETTINGS
@given(lines=session_lines(), keep=st.sampled_from([1, 10, 60, 300, 20000]), data=st.data())
def test_generated_trees_read_the_same(pi: Oracle, lines: Any, keep: int, data: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        _compare(pi, path, None, keep)
        if len(lines) > 1:
            leaf = data.draw(st.sampled_from([line["id"] for line in lines[1:]]))
            _compare(pi, path, leaf, keep)


MESSAGES = st.composite(lambda draw: message(draw, 5))()
OPS = st.lists(
    st.sampled_from(
        [
            "message",
            "message",
            "message",
            "compact",
            "compact_none",
            "edit",
            "omit",
            "branch",
            "branch_summary",
            "label",
            "name",
            "thinking",
            "custom",
            "usage",
        ]
    ),
    min_size=1,
    max_size=25,
)


@SETTINGS
@given(ops=OPS, keep=st.sampled_from([1, 30, 20000]), data=st.data())
def test_files_pi_lsp_writes_read_the_same_in_pi(
    pi: Oracle, ops: list[str], keep: int, data: Any
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SessionStore.create("/p", directory=Path(folder))
        store.append_message({"role": "user", "content": "hi", "timestamp": 1})
        store.append_message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
                "api": "openai-completions",
                "provider": "openai",
                "model": "m1",
                "usage": {
                    "input": 1,
                    "output": 1,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": 2,
            }
        )
        for op in ops:
            path_ids = [r.id for r in store.branch_path()]
            editable = [
                r.id
                for r in store.branch_path()
                if r.type == "custom_message" or r.role in ("user", "assistant", "toolResult")
            ]
            if op == "message":
                store.append_message(data.draw(MESSAGES))
            elif op == "compact":
                store.append_compaction("S", data.draw(st.sampled_from(path_ids)), 100)
            elif op == "compact_none":
                store.append_compaction(
                    "S0", None, 50, details={"readFiles": [], "modifiedFiles": []}
                )
            elif op in ("edit", "omit") and editable:
                target = data.draw(st.sampled_from(editable))
                content = data.draw(TEXT)
                store.append_context_edit(target, None if op == "omit" else {"content": content})
            elif op == "branch":
                store.branch(data.draw(st.sampled_from(path_ids)))
            elif op == "branch_summary":
                store.branch_with_summary(data.draw(st.sampled_from(path_ids)), "went there")
            elif op == "label":
                store.append_label(data.draw(st.sampled_from(path_ids)), "mark")
            elif op == "name":
                store.append_session_info(data.draw(st.sampled_from(["", "two\nlines", " x "])))
            elif op == "thinking":
                store.append_thinking_level_change(data.draw(st.sampled_from(["high", "max"])))
            elif op == "custom":
                store.append_custom_message("ext", data.draw(TEXT), True)
            elif op == "usage":
                store.append_usage("cache_warm", "openai", "m1", {"input": 3})
        path = store.path
        store.close()
        assert path is not None and path.exists()
        _compare(pi, path, None, keep)

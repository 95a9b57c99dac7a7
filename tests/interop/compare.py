"""pi_lsp's context and compaction plan in the oracle's shape, for exact comparison.

File lists are sorted by UTF-16 code units, as JavaScript's ``sort()`` orders them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_lsp.compaction import CHARS4, CompactionSettings, TokenCounter, prepare_compaction
from pi_lsp.javascript import utf16_key
from pi_lsp.session import SessionStore


def plain(value: Any) -> Any:
    """JSON round trip (drops tuple/str subclasses, as the oracle's JSON does)."""
    return json.loads(json.dumps(value))


def ours(path: Path, leaf_id: str | None, keep: int | None) -> dict[str, Any]:
    """What pi_lsp reads from ``path`` at ``leaf_id`` (default: the file's leaf)."""
    store = SessionStore.open(path)
    try:
        leaf = leaf_id if leaf_id is not None else store.leaf_id
        context = store.context(leaf)
        out: dict[str, Any] = {
            "leafId": leaf,
            "sessionName": store.session_name,
            "context": plain(context.to_json()),
            "tokens": [CHARS4(m) for m in context.messages],
            "compaction": None,
        }
        if keep is not None:
            path_records = store.branch_path(leaf) if leaf is not None else []
            prep = prepare_compaction(
                path_records, CompactionSettings(keep_recent_tokens=keep), TokenCounter(CHARS4)
            )
            if prep is not None and not prep.nothing_to_summarize:
                ops = prep.file_ops
                out["compaction"] = {
                    "firstKeptEntryId": prep.first_kept_entry_id,
                    "isSplitTurn": prep.is_split_turn,
                    "tokensBefore": prep.tokens_before,
                    "previousSummary": prep.previous_summary,
                    "messagesToSummarize": plain(prep.messages_to_summarize),
                    "turnPrefixMessages": plain(prep.turn_prefix_messages),
                    "readFiles": sorted(ops.read, key=utf16_key),
                    "writtenFiles": sorted(ops.written, key=utf16_key),
                    "editedFiles": sorted(ops.edited, key=utf16_key),
                }
        return out
    finally:
        store.close()


def theirs(answer: dict[str, Any]) -> dict[str, Any]:
    """The oracle's answer reduced to the fields :func:`ours` gives."""
    assert "error" not in answer, answer
    return {k: answer[k] for k in ("leafId", "sessionName", "context", "tokens", "compaction")}

"""Hypothesis strategies for session files with every entry type pi 1.6.0 writes.

Trees, not just chains: an entry may hang anywhere. Compactions keep from an entry of their
path, keep nothing (their own id, as pi's retain-none compaction) or name a missing entry;
context edits aim at anything on the path (editable or not, omitted or replaced); system
messages carry sections, patches and tool changes. Texts mix ASCII, line breaks, accents and
astral characters so UTF-16 lengths differ from code-point counts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

TEXT = st.text(alphabet="ab \nxyzé😀", max_size=120)
SHORT = st.text(alphabet="abc😀", min_size=1, max_size=8)
TOOLS = ("read", "write", "edit", "bash", "grep")
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def _text(draw: st.DrawFn) -> dict[str, Any]:
    return {"type": "text", "text": draw(TEXT)}


def _user_content(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(TEXT)
    blocks = [_text(draw) for _ in range(draw(st.integers(0, 2)))]
    return blocks + [IMAGE] * draw(st.integers(0, 1))


def _usage(draw: st.DrawFn) -> dict[str, Any]:
    parts = {k: draw(st.integers(0, 3000)) for k in ("input", "output", "cacheRead", "cacheWrite")}
    total = draw(st.sampled_from([0, sum(parts.values())]))
    cost = {k: 0 for k in ("input", "output", "cacheRead", "cacheWrite", "total")}
    return {**parts, "totalTokens": total, "cost": cost}


def message(draw: st.DrawFn, ms: int) -> dict[str, Any]:
    """A message of any role pi stores."""
    role = draw(
        st.sampled_from(
            ["user", "user", "assistant", "assistant", "toolResult", "system", "bashExecution"]
        )
    )
    if role == "user":
        return {"role": "user", "content": _user_content(draw), "timestamp": ms}
    if role == "assistant":
        blocks: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["text", "thinking", "toolCall"]))
            if kind == "text":
                blocks.append(_text(draw))
            elif kind == "thinking":
                blocks.append({"type": "thinking", "thinking": draw(TEXT)})
            else:
                name = draw(st.sampled_from(TOOLS))
                args = {"path": draw(SHORT) + ".py", "n": draw(st.integers(0, 9))}
                blocks.append({"type": "toolCall", "id": "c1", "name": name, "arguments": args})
        return {
            "role": "assistant",
            "content": blocks,
            "api": "openai-completions",
            "provider": "openai",
            "model": draw(st.sampled_from(["m1", "m2"])),
            "usage": _usage(draw),
            "stopReason": draw(st.sampled_from(["stop", "toolUse", "length", "error", "aborted"])),
            "timestamp": ms,
        }
    if role == "toolResult":
        content = [_text(draw)] + [IMAGE] * draw(st.integers(0, 1))
        return {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": draw(st.sampled_from(TOOLS)),
            "content": content,
            "isError": draw(st.booleans()),
            "timestamp": ms,
        }
    if role == "system":
        out: dict[str, Any] = {"role": "system", "content": draw(st.sampled_from(["", "base"]))}
        names = draw(st.lists(st.sampled_from(["preamble", "tools", "rules", "cwd"]), max_size=3))
        if names:
            out["sections"] = {n: draw(st.one_of(st.none(), TEXT)) for n in names}
        added = draw(st.lists(st.sampled_from(TOOLS), max_size=2, unique=True))
        if added:
            out["toolsAdded"] = [
                {"name": n, "description": draw(TEXT), "parameters": {"type": "object"}}
                for n in added
            ]
        removed = draw(st.lists(st.sampled_from(TOOLS), max_size=1))
        if removed:
            out["toolsRemoved"] = [{"name": n} for n in removed]
        return {**out, "timestamp": ms}
    return {
        "role": "bashExecution",
        "command": draw(SHORT),
        "output": draw(TEXT),
        "exitCode": draw(st.sampled_from([0, 1])),
        "cancelled": False,
        "truncated": False,
        "excludeFromContext": draw(st.booleans()),
        "timestamp": ms,
    }


KINDS = [
    *["message"] * 8,
    "custom_message",
    "branch_summary",
    "compaction",
    "compaction",
    "context_edit",
    "context_edit",
    "label",
    "session_info",
    "model_change",
    "thinking_level_change",
    "usage",
    "custom",
]


def _path(entries: list[dict[str, Any]], leaf: str | None) -> list[dict[str, Any]]:
    by_id = {e["id"]: e for e in entries}
    out = []
    while leaf is not None and leaf in by_id:
        out.append(by_id[leaf])
        leaf = by_id[leaf]["parentId"]
    return out[::-1]


@st.composite
def session_lines(draw: st.DrawFn, max_entries: int = 40) -> list[dict[str, Any]]:
    """A session file's lines: a header, then entries forming a tree."""
    entries: list[dict[str, Any]] = []
    leaf: str | None = None
    base = 1_700_000_000_000
    for index in range(draw(st.integers(1, max_entries))):
        if entries and draw(st.integers(0, 9)) == 0:
            leaf = draw(st.sampled_from([None, *(e["id"] for e in entries)]))
        ms = base + index * 1000
        seconds, millis = divmod(ms, 1000)
        stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        entry: dict[str, Any] = {
            "id": f"{index + 1:08x}",
            "parentId": leaf,
            "timestamp": f"{stamp}.{millis:03d}Z",
        }
        kind = draw(st.sampled_from(KINDS))
        path = _path(entries, leaf)
        if kind == "message":
            entry |= {"type": "message", "message": message(draw, ms)}
        elif kind == "custom_message":
            entry |= {
                "type": "custom_message",
                "customType": "ext",
                "content": _user_content(draw),
                "display": draw(st.booleans()),
            }
        elif kind == "branch_summary":
            entry |= {
                "type": "branch_summary",
                "fromId": draw(st.sampled_from(["root", *(e["id"] for e in entries)])),
                "summary": draw(st.sampled_from(["", "learned"])) + draw(TEXT),
            }
        elif kind == "compaction":
            kept = draw(st.sampled_from([entry["id"], "missing0", *(e["id"] for e in path)]))
            entry |= {
                "type": "compaction",
                "summary": "S" + draw(TEXT),
                "firstKeptEntryId": kept,
                "tokensBefore": draw(st.integers(0, 9999)),
                "details": {"readFiles": ["r.py"], "modifiedFiles": []},
                "fromHook": draw(st.booleans()),
            }
            if draw(st.booleans()):
                system = message(draw, ms)
                if system["role"] == "system":
                    entry["systemMessage"] = system
        elif kind == "context_edit":
            if not path:
                continue
            target = draw(st.sampled_from([e["id"] for e in path]))
            replacement = draw(
                st.one_of(
                    st.none(),
                    st.builds(lambda c: {"content": c}, st.one_of(TEXT, st.just([IMAGE]))),
                )
            )
            entry |= {"type": "context_edit", "targetId": target, "replacement": replacement}
        elif kind == "label":
            if not entries:
                continue
            target = draw(st.sampled_from([e["id"] for e in entries]))
            entry |= {"type": "label", "targetId": target}
            label = draw(st.sampled_from([None, "", "bookmark"]))
            if label is not None:
                entry["label"] = label
        elif kind == "session_info":
            entry |= {"type": "session_info", "name": draw(st.sampled_from(["", "  ", "a name"]))}
        elif kind == "model_change":
            entry |= {"type": "model_change", "provider": "openai", "modelId": "m3"}
        elif kind == "thinking_level_change":
            level = draw(st.sampled_from(["off", "low", "high", "xhigh", "max"]))
            entry |= {"type": "thinking_level_change", "thinkingLevel": level}
        elif kind == "usage":
            entry |= {
                "type": "usage",
                "kind": "cache_warm",
                "provider": "openai",
                "model": "m1",
                "usage": _usage(draw),
            }
        else:
            entry |= {"type": "custom", "customType": "state", "data": {"n": 1}}
        entries.append(entry)
        leaf = entry["id"]
    header = {
        "type": "session",
        "version": 3,
        "id": "0190f2a0-0000-7000-8000-000000000001",
        "timestamp": "2023-11-14T22:13:20.000Z",
        "cwd": "/p",
    }
    return [header, *entries]

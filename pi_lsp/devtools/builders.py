"""Builders of pi's messages, usage, clocks and ids: the one set tests, benchmarks and the demo use.

Messages are plain JSON in pi's shape (what the store appends and the loop passes around), typed
with the session's TypedDicts. Defaults are fixed values (millisecond timestamps a second apart
in 2023, a 15-token usage), so a test states only what it is about; every default can be
overridden.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pi_lsp.devtools.fake_script import ScriptToolCall, Turn
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import MessageEntry, SessionHeader
from pi_lsp.session.jsonl import JsonObject
from pi_lsp.session.messages import (
    AssistantBlock,
    AssistantMessage,
    StopReason,
    StoredMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserBlock,
    UserMessage,
)

USER_TS = 1_700_000_000_000
"""The default timestamps (ms): a user message, the reply half a second later, a tool result."""
ASSISTANT_TS = USER_TS + 500
TOOL_RESULT_TS = USER_TS + 1_000
FAKE_MODEL = {"provider": "openai", "model": "fake-model", "api": "openai-completions"}
"""``assistant(**FAKE_MODEL)``: a reply from the scripted server's model (``openai/fake-model``)."""


def usage(
    input: int = 10, output: int = 5, *, total: int | None = None, cache_read: int = 0
) -> Usage:
    """pi's ``usage`` object (cost zero); ``total`` defaults to the sum."""
    return {
        "input": input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": 0,
        "totalTokens": input + output + cache_read if total is None else total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


USAGE = usage()
"""A reply's usage: 10 input, 5 output, 15 in total."""


def text(value: str) -> TextContent:
    """A text content block."""
    return {"type": "text", "text": value}


def _content(content: str | list[AssistantBlock]) -> list[AssistantBlock]:
    """A string is one text block (none when empty); a list of blocks is used as it is."""
    if isinstance(content, str):
        return [text(content)] if content else []
    return list(content)


def user(content: str | list[UserBlock], ts: int = USER_TS) -> UserMessage:
    """A user message: one text block, or the blocks given."""
    blocks: list[UserBlock] = [text(content)] if isinstance(content, str) else list(content)
    return {"role": "user", "content": blocks, "timestamp": ts}


def call(name: str = "read", call_id: str = "c1", **arguments: Any) -> ToolCall:
    """A ``toolCall`` content block, for :func:`assistant`'s ``calls`` or content."""
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def assistant(
    content: str | list[AssistantBlock] = "ok",
    *,
    calls: list[ToolCall] | None = None,
    stop: StopReason = "stop",
    total: int = 15,
    provider: str = "anthropic",
    model: str = "claude-sonnet-4-5",
    api: str = "anthropic-messages",
    ts: int = ASSISTANT_TS,
    usage_of: Usage | None = None,
) -> AssistantMessage:
    """An assistant reply: its text block (unless empty) or blocks, then the tool calls."""
    return {
        "role": "assistant",
        "content": _content(content) + [{"type": "toolCall", **c} for c in calls or []],
        "api": api,
        "provider": provider,
        "model": model,
        "usage": usage_of if usage_of is not None else {**USAGE, "totalTokens": total},
        "stopReason": stop,
        "timestamp": ts,
    }


def tool_result(
    content: str | list[UserBlock],
    call_id: str = "c1",
    name: str = "read",
    *,
    ts: int = TOOL_RESULT_TS,
) -> ToolResultMessage:
    """A successful result of call ``call_id``: one text block, or the blocks given."""
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [text(content)] if isinstance(content, str) else list(content),
        "isError": False,
        "timestamp": ts,
    }


class Clock:
    """Seconds that advance ``step`` per reading, and whenever a test sets ``now``.

    The default step, a millisecond, keeps entry timestamps apart.
    """

    def __init__(self, start: float = 1_700_000_000.0, step: float = 0.001) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> float:
        """The next time."""
        self.now += self.step
        return self.now


def counting_uuids() -> Callable[[], str]:
    """Deterministic UUID strings whose first 8 characters (pi's entry ids) are unique."""
    counter = itertools.count(1)
    return lambda: f"{next(counter):08x}-0000-4000-8000-000000000000"


_SYNC = {"synchronization": {"didSave": True, "willSave": True, "dynamicRegistration": False}}
VSCODE_CAPABILITIES: JsonObject = {
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create", "rename", "delete"],
            "failureHandling": "textOnlyTransactional",
            "normalizesLineEndings": True,
            "changeAnnotationSupport": {"groupsOnLabel": True},
        },
        "workspaceFolders": True,
        "configuration": True,
    },
    "textDocument": _SYNC,
    "window": {"workDoneProgress": True},
    "general": {"positionEncodings": ["utf-16"]},
}
"""The client capabilities VS Code 1.9x announces, the part the daemon reads (LSP JSON)."""

NEOVIM_CAPABILITIES: JsonObject = {
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {"resourceOperations": ["rename", "create", "delete"]},
        "workspaceFolders": True,
        "configuration": True,
    },
    "textDocument": _SYNC,
    "window": {"workDoneProgress": True},
    "general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]},
}
"""What Neovim 0.11.4 announces (``vim.lsp.protocol.make_client_capabilities()``): UTF-8
positions preferred, no ``documentChanges`` (so edits go out as unversioned ``changes``) and
no change annotations."""


def session_header(
    session_id: str = "0b0e5c1e-0000-4000-8000-000000000001",
    cwd: str = "/",
    timestamp: str = "2026-01-01T00:00:00.000Z",
) -> SessionHeader:
    """A version 3 session header line's object, as pi writes it."""
    return {"type": "session", "version": 3, "id": session_id, "timestamp": timestamp, "cwd": cwd}


def message_entry(
    entry_id: str,
    parent: str | None,
    message: StoredMessage,
    timestamp: str = "2026-01-01T00:00:00.000Z",
) -> MessageEntry:
    """A ``message`` entry line's object, as pi writes it."""
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": timestamp,
        "message": message,
    }


def write_garbage_session(path: Path, cwd: str, size: int = 9_000_000) -> Path:
    """A session header then ``size`` bytes of lines that are not JSON (a reader's worst case)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(json.dumps(session_header(cwd=cwd)).encode() + b"\n")
        number = 0
        while out.tell() < size:
            out.write(b"garbage line %d that is not JSON\n" % number)
            number += 1
    return path


FAKE_MODELS: JsonObject = {
    "openai/fake-model": {"contextWindow": 100_000},
    "openai/fake-model-2": {"contextWindow": 200_000, "reasoning": True},
}
"""The scripted server's models: the default one and a reasoning one to switch to."""


def fake_settings(api_base: str, **extra: Any) -> JsonObject:
    """pi settings that point the daemon at the scripted server, retrying fast.

    camelCase, as in ``settings.json`` or ``initializationOptions.pi``; ``extra`` adds keys or
    replaces one.
    """
    return {
        "apiBase": api_base,
        "defaultModel": "openai/fake-model",
        "models": FAKE_MODELS,
        "retry": {"baseDelayMs": 10},
        **extra,
    }


def tool_turn(name: str, arguments: JsonObject, **turn: Any) -> Turn:
    """A scripted reply that calls one tool (``turn`` sets its other fields: text, delays)."""
    return Turn(tool_calls=[ScriptToolCall(name=name, arguments=arguments)], **turn)


def fresh_store(
    cwd: str = "/p",
    directory: Path | None = None,
    *,
    start: float = 1_700_000_000.0,
    turns: Sequence[tuple[str, str]] = (),
) -> SessionStore:
    """A new session with a :class:`Clock` from ``start`` and :func:`counting_uuids` ids.

    In memory, or (given ``directory``) a file there once it holds an assistant reply; each
    of ``turns`` is a prompt and its reply, appended in order.
    """
    clock, uuids = Clock(start), counting_uuids()
    if directory is None:
        store = SessionStore.in_memory(cwd, clock=clock, uuids=uuids)
    else:
        store = SessionStore.create(cwd, directory=directory, clock=clock, uuids=uuids)
    for prompt, reply in turns:
        store.append_message(user(prompt))
        store.append_message(assistant(reply))
    return store

"""pi's agent events and stored messages as ACP ``session/update`` payloads, and their sending.

:class:`LiveUpdates` follows one session's event stream: text and thinking deltas become message
and thought chunks, a tool call becomes ``tool_call`` (pending, when the model has finished
writing its arguments), then ``tool_call_update`` in progress, with partial output, and finally
completed or failed with its content. :func:`replay` turns a built context (what the session's
model sees, as pi's own chat view shows it) into the same kinds of update, each tool call with
its final status, for ``session/load``. Retries and compaction appear as short thought chunks.

:class:`Outbox` sends them in order without making the agent wait for the pipe: the daemon's
events arrive through a synchronous sink in the middle of a turn; each becomes an update queued
there and written by one pump task, so updates leave in the order the events came. ``drain()``
waits until everything queued so far has been written: a prompt's answer is sent only after its
last update.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from acp.interfaces import Client
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    ImageContentBlock,
    SessionInfoUpdate,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

from pi_lsp.acp.content import (
    Content,
    kind_of,
    locations_of,
    result_content,
    text_content,
    text_of_blocks,
    title_of,
)
from pi_lsp.session.jsonl import JsonObject

logger = logging.getLogger(__name__)
Update = AgentMessageChunk | AgentThoughtChunk | UserMessageChunk | ToolCallStart | ToolCallProgress
SessionUpdate = Update | UsageUpdate | SessionInfoUpdate | CurrentModeUpdate | ConfigOptionUpdate
"""Every ``session/update`` this face sends."""
DiffLookup = Callable[[str, str, Mapping[str, object]], tuple[str, str | None, str] | None]
"""``(tool name, call id, args)`` → ``(path, old text, new text)`` of the file it changed."""


def _text(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def _meta(entry_id: str | None) -> dict[str, Any] | None:
    return None if entry_id is None else {"pi": {"entryId": entry_id}}


def block_id(message: Mapping[str, Any], index: int, entry_id: str | None = None) -> str | None:
    """The ``messageId`` of block ``index`` of an assistant message: the same live and replayed.

    pi stores no message id, and a message's entry id exists only once it has ended, after its
    chunks went out; its creation time (``timestamp``, set when it starts streaming and stored
    unchanged) and the block's position are known all along. Each text or thinking block is its
    own ACP message, so a thought and the reply never share an id (ACP: a changed id is a new
    message). A message without a timestamp (never from pi-lsp) falls back to its entry id.
    """
    stamp = message.get("timestamp")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return f"{int(stamp)}-{index}"
    return None if entry_id is None else f"{entry_id}-{index}"


def notice_id() -> str:
    """A fresh ``messageId`` for a notice that is no stored message (a retry, a compaction)."""
    return f"notice-{uuid.uuid4().hex}"


def agent_text(text: str, message_id: str | None, entry_id: str | None = None) -> AgentMessageChunk:
    """An agent message chunk (``entry_id``: the stored entry it shows, in a replay)."""
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=_text(text), **_ids(message_id, entry_id)
    )


def agent_thought(
    text: str, message_id: str | None, entry_id: str | None = None
) -> AgentThoughtChunk:
    """An agent thought chunk (``entry_id``: the stored entry it shows, in a replay)."""
    return AgentThoughtChunk(
        session_update="agent_thought_chunk", content=_text(text), **_ids(message_id, entry_id)
    )


def _ids(message_id: str | None, entry_id: str | None) -> dict[str, Any]:
    return {"message_id": message_id, "field_meta": _meta(entry_id)}


def tool_call_start(
    call_id: str, name: str, args: dict[str, Any], cwd: str, **fields: Any
) -> ToolCallStart:
    """``tool_call`` for a pi tool call (``fields``: status, content, raw output…)."""
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=call_id,
        title=title_of(name, args),
        kind=kind_of(name),
        locations=locations_of(name, args, cwd),
        raw_input=args,
        **fields,
    )


class LiveUpdates:
    """The updates for one session's live events (it remembers which calls were announced)."""

    def __init__(self, cwd: str, diff: DiffLookup | None = None) -> None:
        self.cwd = cwd
        self._diff = diff
        self._args: dict[str, dict[str, Any]] = {}
        """Arguments of the calls announced and not finished yet."""
        self._terminals: dict[str, str] = {}
        """Client terminal of each running ``bash`` call (embedded in its updates)."""
        self._streaming: JsonObject = {}
        """The assistant message streaming now (from ``message_start``: the deltas' events
        carry only the delta), for the chunks' ``messageId``."""

    def __call__(self, event: Mapping[str, Any]) -> list[Update]:
        """The updates for one event (most events have none)."""
        kind = event["type"]
        handler = getattr(self, f"_on_{kind}", None)
        return handler(event) if handler is not None else []

    def _on_message_start(self, event: Mapping[str, Any]) -> list[Update]:
        message = event.get("message")
        if isinstance(message, dict) and message.get("role") == "assistant":
            self._streaming = message
        return []

    def _on_message_update(self, event: Mapping[str, Any]) -> list[Update]:
        sub = event["assistantMessageEvent"]
        kind = sub.get("type")
        if kind in ("text_delta", "thinking_delta") and sub.get("delta"):
            index = sub.get("contentIndex")
            message_id = block_id(self._streaming, index) if isinstance(index, int) else None
            chunk = agent_text if kind == "text_delta" else agent_thought
            return [chunk(sub["delta"], message_id)]
        if kind == "toolcall_end":
            call = sub.get("toolCall") or {}
            return self._announce(str(call.get("id")), str(call.get("name")), call.get("arguments"))
        return []

    def _announce(self, call_id: str, name: str, args: object) -> list[Update]:
        if call_id in self._args:
            return []
        arguments = args if isinstance(args, dict) else {}
        self._args[call_id] = arguments
        return [tool_call_start(call_id, name, arguments, self.cwd, status="pending")]

    def _on_tool_execution_start(self, event: Mapping[str, Any]) -> list[Update]:
        call_id = str(event["toolCallId"])
        return [
            *self._announce(call_id, str(event["toolName"]), event.get("args")),
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id=call_id, status="in_progress"
            ),
        ]

    def _terminal(self, call_id: str) -> list[Content]:
        terminal = self._terminals.get(call_id)
        if terminal is None:
            return []
        return [TerminalToolCallContent(type="terminal", terminal_id=terminal)]

    def _on_tool_execution_update(self, event: Mapping[str, Any]) -> list[Update]:
        partial = event.get("partialResult") or {}
        details = partial.get("details")
        if isinstance(details, dict) and isinstance(details.get("terminalId"), str):
            call_id = str(event["toolCallId"])
            self._terminals[call_id] = details["terminalId"]
            return [
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=call_id,
                    content=self._terminal(call_id),
                )
            ]
        text = text_of_blocks(partial.get("content"))
        return [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=str(event["toolCallId"]),
                content=[text_content(text)] if text else [],
            )
        ]

    def _on_tool_execution_end(self, event: Mapping[str, Any]) -> list[Update]:
        call_id, name = str(event["toolCallId"]), str(event["toolName"])
        args = self._args.pop(call_id, {})
        failed = bool(event.get("isError"))
        diff = None if failed or self._diff is None else self._diff(name, call_id, args)
        result = event.get("result") or {}
        terminal = self._terminal(call_id)
        self._terminals.pop(call_id, None)
        return [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=call_id,
                status="failed" if failed else "completed",
                content=[*terminal, *result_content(result, diff)],
                raw_output=result,
            )
        ]

    def _on_auto_retry_start(self, event: Mapping[str, Any]) -> list[Update]:
        seconds = int(event.get("delayMs", 0)) / 1000
        return [
            agent_thought(
                f"\n[Provider error: {event.get('errorMessage')}; retrying in {seconds:g} s "
                f"(attempt {event.get('attempt')} of {event.get('maxAttempts')})]\n",
                notice_id(),
            )
        ]

    def _on_auto_compaction_start(self, event: Mapping[str, Any]) -> list[Update]:
        text = f"\n[Compacting the context ({event.get('reason')})…]\n"
        return [agent_thought(text, notice_id())]

    def _on_compaction_start(self, event: Mapping[str, Any]) -> list[Update]:
        return [agent_thought("\n[Compacting the context…]\n", notice_id())]


def _user_chunks(message: Mapping[str, Any], entry_id: str) -> Iterator[UserMessageChunk]:
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            acp_block: TextContentBlock | ImageContentBlock = _text(str(block["text"]))
        elif block.get("type") == "image":
            acp_block = ImageContentBlock(
                type="image", data=str(block.get("data", "")), mime_type=str(block.get("mimeType"))
            )
        else:
            continue
        yield UserMessageChunk(
            session_update="user_message_chunk",
            content=acp_block,
            message_id=entry_id,
            field_meta=_meta(entry_id),
        )


def replay(
    messages: Sequence[Mapping[str, Any]], entry_ids: list[str], cwd: str
) -> Iterator[Update]:
    """The updates that show a context's messages, in order (lazily: the first comes at once)."""
    results: dict[str, Mapping[str, Any]] = {
        str(m.get("toolCallId")): m for m in messages if m.get("role") == "toolResult"
    }
    for message, entry_id in zip(messages, entry_ids, strict=False):
        role = message.get("role")
        if role == "user":
            yield from _user_chunks(message, entry_id)
        elif role == "assistant":
            yield from _assistant(message, entry_id, results, cwd)
        elif role == "bashExecution":
            command = str(message.get("command", ""))
            yield tool_call_start(
                entry_id,
                "bash",
                {"command": command},
                cwd,
                status="completed",
                content=[text_content(str(message.get("output", "")))],
                field_meta=_meta(entry_id),
            )
        elif role == "custom" and message.get("display"):
            yield agent_text(text_of_blocks(message.get("content")), entry_id, entry_id)
        elif role == "compactionSummary":
            summary = f"[Summary of the earlier conversation]\n{message.get('summary')}"
            yield agent_thought(summary, entry_id, entry_id)
        elif role == "branchSummary":
            summary = f"[Summary of a branch left]\n{message.get('summary')}"
            yield agent_thought(summary, entry_id, entry_id)


def _assistant(
    message: Mapping[str, Any], entry_id: str, results: Mapping[str, Mapping[str, Any]], cwd: str
) -> Iterator[Update]:
    for index, block in enumerate(message.get("content") or []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and block.get("text"):
            yield agent_text(str(block["text"]), block_id(message, index, entry_id), entry_id)
        elif kind == "thinking" and block.get("thinking"):
            yield agent_thought(
                str(block["thinking"]), block_id(message, index, entry_id), entry_id
            )
        elif kind == "toolCall":
            call_id = str(block.get("id"))
            args = block.get("arguments") if isinstance(block.get("arguments"), dict) else {}
            result = results.get(call_id)
            content: list[Content]
            if result is None:
                status = "failed"
                content = [text_content("No result was recorded for this call.")]
            else:
                status = "failed" if result.get("isError") else "completed"
                content = result_content(result)
            yield tool_call_start(
                call_id,
                str(block.get("name")),
                args or {},
                cwd,
                status=status,
                content=content,
                raw_output=None if result is None else {"content": result.get("content")},
                field_meta=_meta(entry_id),
            )


class Outbox:
    """One connection's queue of updates."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._queue: asyncio.Queue[tuple[str, SessionUpdate]] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None

    def send(self, session_id: str, update: SessionUpdate) -> None:
        """Queue one update (the pump starts on first use)."""
        self._queue.put_nowait((session_id, update))
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._run())

    async def drain(self) -> None:
        """Wait until every queued update has been written (or failed)."""
        await self._queue.join()

    async def _run(self) -> None:
        while True:
            session_id, update = await self._queue.get()
            try:
                await self._client.session_update(session_id=session_id, update=update)
            except ConnectionError:
                pass  # the client went away: the turn still ends and is stored
            except Exception:
                logger.exception("sending %s failed", type(update).__name__)
            finally:
                self._queue.task_done()

"""Summary requests: the transcript they carry, their texts, the model interface (spec 6.6, D5).

The transcript is pi's ``serializeConversation``: messages become labelled parts joined by blank
lines, so the summarizing model reads a transcript instead of continuing a chat. Argument values
are written with ``JSON.stringify`` and lengths counted in UTF-16 code units
(:mod:`pi_lsp.javascript`); tool results are cut to 2000 code units with a marker; user and
assistant text is never cut; unlike pi, the cut never splits a surrogate pair.

Every request is one user message holding a ``<conversation>`` transcript, optionally the
``<previous-summary>`` to update, and then one of the instruction texts below (pi's structure,
pi_lsp's own wording). A compaction needs a history summary (initial or update) and, for a
split turn, one of the turn's prefix, run concurrently; the stored summary text gets the file
lists appended. No session access: :mod:`pi_lsp.compaction.compact` owns that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pi_lsp.compaction.models import CompactionDetails, CompactionPreparation, SummarizationError
from pi_lsp.compaction.tokens import string_or_empty, text_blocks
from pi_lsp.javascript import js_object_items, js_stringify, utf16_prefix
from pi_lsp.session.jsonl import JsonObject, js_len
from pi_lsp.session.messages import convert_to_llm


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """pi's ``formatFileOperations``: the ``<read-files>``/``<modified-files>`` blocks, or ""."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


TOOL_RESULT_MAX_CHARS = 2000
"""UTF-16 code units of a tool result kept in a summary request."""


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """``text`` cut to ``max_chars`` UTF-16 units plus ``[... N more characters truncated]``."""
    length = js_len(text)
    if length <= max_chars:
        return text
    kept = utf16_prefix(text, max_chars)
    return f"{kept}\n\n[... {length - js_len(kept)} more characters truncated]"


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        block["text"]
        for block in (content if isinstance(content, list) else ())
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _tool_call(block: JsonObject) -> str:
    args = block.get("arguments")
    pairs = js_object_items(args) if isinstance(args, dict) else []
    rendered = ", ".join(f"{key}={js_stringify(value)}" for key, value in pairs)
    return f"{string_or_empty(block.get('name'))}({rendered})"


def assistant_blocks(content: Any) -> tuple[list[str], list[str], list[JsonObject]]:
    """An assistant content's text, thinking and tool-call blocks, each kind in order."""
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[JsonObject] = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(string_or_empty(block.get("text")))
        elif kind == "thinking":
            thinking.append(string_or_empty(block.get("thinking")))
        elif kind == "toolCall":
            calls.append(block)
    return texts, thinking, calls


def _assistant_parts(content: Any) -> list[str]:
    texts, thinking, blocks = assistant_blocks(content)
    calls = [_tool_call(block) for block in blocks]
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Iterable[JsonObject]) -> str:
    """Provider messages (``user``/``assistant``/``toolResult``) as a labelled transcript."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            parts.extend(_assistant_parts(message.get("content")))
        elif role == "toolResult":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


def serialize_messages(messages: Iterable[JsonObject]) -> str:
    """Agent messages (any role) converted with ``convert_to_llm`` and then serialized."""
    return serialize_conversation(convert_to_llm(messages))


def text_of(content: Any) -> str:
    """A message's text: a string as is, text blocks concatenated without a separator."""
    texts: list[str] = []
    text_blocks(content, texts)
    return "".join(texts)


SYSTEM_PROMPT = """\
You condense conversations between a user and an AI coding assistant into structured summaries.
Read the transcript you are given and write only the summary that is asked for, in the requested \
format. Do not carry on the conversation, and do not answer any question that appears in it."""


_WORDING = {
    "history": (
        "What the user wants to achieve; several goals if the session covers several tasks.",
        "Requirements, limits or preferences the user stated",
        "Work that is under way",
        "Whatever stops progress, if anything",
    ),
    "branch": (
        "What the user was trying to achieve on this branch",
        "Requirements, limits or preferences that were stated",
        "Work started but not finished",
        "Whatever stopped progress, if anything",
    ),
}
"""Goal, constraints, in-progress and blocked lines of the layout, per kind of summary."""


def summary_layout(kind: Literal["history", "branch"]) -> str:
    """The Markdown layout a new summary is asked for, worded for its kind."""
    goal, constraints, in_progress, blocked = _WORDING[kind]
    return f"""\
## Goal
[{goal}]

## Constraints & Preferences
- [{constraints}]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [{in_progress}]

### Blocked
- [{blocked}]

## Key Decisions
- **[Decision]**: [Why it was made, briefly]

## Next Steps
1. [What to do next, in order]
"""


INITIAL_INSTRUCTIONS = f"""\
The <conversation> above is a transcript to condense. Write a checkpoint summary that another \
model can pick the work up from.

Use exactly this Markdown layout:

{summary_layout("history")}
## Critical Context
- [Data, examples or references needed to continue]
- [Or "(none)" if nothing applies]

Keep every section short. Copy file paths, function names and error messages exactly."""

UPDATE_INSTRUCTIONS = """\
The <conversation> above holds NEW messages. Merge them into the summary given in \
<previous-summary>, following these rules:
- Keep everything the previous summary says unless it is clearly no longer relevant.
- Add the new progress, decisions and context.
- Move items from "In Progress" to "Done" once they are finished.
- Rewrite "Next Steps" to match where the work now stands.
- Copy file paths, function names and error messages exactly.

Use exactly this Markdown layout:

## Goal
[The existing goals, plus any new ones]

## Constraints & Preferences
- [The existing ones, plus any new ones]

## Progress
### Done
- [x] [Items done before AND items finished since]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; drop the resolved ones]

## Key Decisions
- **[Decision]**: [Why it was made, briefly] (keep the earlier ones, add new ones)

## Next Steps
1. [Updated for the current state]

## Critical Context
- [Important context, kept and extended]

Keep every section short. Copy file paths, function names and error messages exactly."""

TURN_PREFIX_INSTRUCTIONS = """\
The <conversation> above is only the FIRST PART of a turn too long to keep whole; the rest of \
the turn (the most recent work) stays in the context verbatim.

Summarize this first part so the part that was kept makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in this first part]

## Context for Suffix
- [What someone reading only the kept part needs to know]

Be brief and focus on what the kept part depends on."""

NO_PRIOR_HISTORY = "No prior history."
"""History summary of a split turn with nothing before it (pi's text, stored in the entry)."""

SPLIT_TURN_HEADING = "\n\n---\n\n**Turn Context (split turn):**\n\n"
"""Joins the history summary and the turn-prefix summary (pi's layout)."""


def conversation_block(transcript: str) -> str:
    """The transcript wrapped in ``<conversation>`` tags, followed by a blank line."""
    return f"<conversation>\n{transcript}\n</conversation>\n\n"


def previous_summary_block(summary: str) -> str:
    """An earlier summary wrapped in ``<previous-summary>`` tags, followed by a blank line."""
    return f"<previous-summary>\n{summary}\n</previous-summary>\n\n"


def with_focus(instructions: str, focus: str | None) -> str:
    """Instructions with the user's ``Additional focus: …`` appended, if any."""
    return f"{instructions}\n\nAdditional focus: {focus}" if focus else instructions


class SummaryModel(Protocol):
    """The model a summary is written with. Raise on failure (any exception)."""

    @property
    def supports_reasoning(self) -> bool:
        """True for reasoning models: history summaries then ask for ``reasoning="high"``."""
        ...

    @property
    def context_window(self) -> int | None:
        """Tokens the model accepts; None when unknown (branch summaries then assume 128000)."""
        ...

    async def complete(
        self, *, system: str, prompt: str, max_tokens: int, reasoning: str | None
    ) -> str:
        """The text of the model's reply to one user message ``prompt`` under ``system``."""
        ...


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """One call of :meth:`SummaryModel.complete`."""

    system: str
    prompt: str
    max_tokens: int
    reasoning: str | None


def history_request(
    messages: list[JsonObject],
    *,
    reserve_tokens: int,
    previous_summary: str | None,
    focus: str | None,
    reasoning: bool,
) -> SummaryRequest:
    """The history summary: initial, or an update of ``previous_summary``; 0.8 × reserve."""
    prompt = conversation_block(serialize_messages(messages))
    if previous_summary:
        prompt += previous_summary_block(previous_summary)
    base = UPDATE_INSTRUCTIONS if previous_summary else INITIAL_INSTRUCTIONS
    prompt += with_focus(base, focus)
    return SummaryRequest(
        system=SYSTEM_PROMPT,
        prompt=prompt,
        max_tokens=int(0.8 * reserve_tokens),
        reasoning="high" if reasoning else None,
    )


def turn_prefix_request(messages: list[JsonObject], *, reserve_tokens: int) -> SummaryRequest:
    """The summary of a split turn's first part; 0.5 × reserve, no reasoning."""
    prompt = conversation_block(serialize_messages(messages)) + TURN_PREFIX_INSTRUCTIONS
    return SummaryRequest(
        system=SYSTEM_PROMPT, prompt=prompt, max_tokens=int(0.5 * reserve_tokens), reasoning=None
    )


async def send(model: SummaryModel, request: SummaryRequest, failure: str) -> str:
    """Run one request; any failure but cancellation becomes :class:`SummarizationError`."""
    try:
        return await model.complete(
            system=request.system,
            prompt=request.prompt,
            max_tokens=request.max_tokens,
            reasoning=request.reasoning,
        )
    except (asyncio.CancelledError, SummarizationError):
        raise
    except Exception as exc:
        raise SummarizationError(f"{failure}: {str(exc) or type(exc).__name__}") from exc


async def both(first: Awaitable[str], second: Awaitable[str]) -> tuple[str, str]:
    """Await two requests concurrently; if one fails, the other is cancelled."""
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        a, b = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return a, b


async def summarize_compaction(
    prep: CompactionPreparation, model: SummaryModel, focus: str | None = None
) -> tuple[str, CompactionDetails]:
    """The summary text to store (file lists appended) and the entry's ``details``."""
    reserve = prep.settings.reserve_tokens
    history: Awaitable[str]
    if prep.messages_to_summarize:
        request = history_request(
            prep.messages_to_summarize,
            reserve_tokens=reserve,
            previous_summary=prep.previous_summary,
            focus=focus,
            reasoning=model.supports_reasoning,
        )
        history = send(model, request, "Summarization failed")
    else:
        history = _constant(NO_PRIOR_HISTORY)
    if prep.is_split_turn and prep.turn_prefix_messages:
        request = turn_prefix_request(prep.turn_prefix_messages, reserve_tokens=reserve)
        prefix = send(model, request, "Turn prefix summarization failed")
        history_text, prefix_text = await both(history, prefix)
        summary = history_text + SPLIT_TURN_HEADING + prefix_text
    else:
        summary = await history
    details = prep.file_lists()
    return summary + format_file_operations(details.read_files, details.modified_files), details


async def _constant(text: str) -> str:
    return text

"""Summary requests, their texts, and the one model interface they go through (spec 6.6, D5).

Every request is one user message holding a ``<conversation>`` transcript, optionally the
``<previous-summary>`` to update, and then one of the instruction texts below (pi's structure,
pi_lsp's own wording). A compaction needs a history summary (initial or update) and, for a
split turn, one of the turn's prefix, run concurrently; the stored summary text gets the file
lists appended. No session access: :mod:`pi_lsp.compaction.compact` owns that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from pi_lsp.compaction.models import CompactionDetails, SummarizationError
from pi_lsp.compaction.prepare import CompactionPreparation
from pi_lsp.compaction.transcript import format_file_operations, serialize_messages
from pi_lsp.session.jsonl import JsonObject

SYSTEM_PROMPT = """\
You condense conversations between a user and an AI coding assistant into structured summaries.
Read the transcript you are given and write only the summary that is asked for, in the requested \
format. Do not carry on the conversation, and do not answer any question that appears in it."""

_SECTIONS_TAIL = """\
## Key Decisions
- **[Decision]**: [Why it was made, briefly]

## Next Steps
1. [What to do next, in order]
"""

INITIAL_INSTRUCTIONS = f"""\
The <conversation> above is a transcript to condense. Write a checkpoint summary that another \
model can pick the work up from.

Use exactly this Markdown layout:

## Goal
[What the user wants to achieve; several goals if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that is under way]

### Blocked
- [Whatever stops progress, if anything]

{_SECTIONS_TAIL}
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

BRANCH_INSTRUCTIONS = f"""\
The <conversation> above is a branch of the session that the user is leaving. Summarize it so \
the work can be picked up again later.

Use exactly this Markdown layout:

## Goal
[What the user was trying to achieve on this branch]

## Constraints & Preferences
- [Requirements, limits or preferences that were stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [Whatever stopped progress, if anything]

{_SECTIONS_TAIL}
Keep every section short. Copy file paths, function names and error messages exactly."""

BRANCH_PREAMBLE = """\
The user explored a different conversation branch before returning here.
Summary of that exploration:

"""
"""Put before every branch summary; pi's exact text, since it is part of the stored entry."""

NO_PRIOR_HISTORY = "No prior history."
"""History summary of a split turn with nothing before it (pi's text, stored in the entry)."""

NO_BRANCH_CONTENT = "No content to summarize"
"""Branch summary of a branch without messages (pi's text; no model is asked)."""

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

"""Summary requests and the one model interface they go through (spec 6.6, D5).

Builds the requests a compaction needs (history summary, initial or update, and the prefix of
a split turn, run concurrently), sends them through :class:`SummaryModel`, and assembles the
stored summary text with the file lists appended. No session access: ``compact`` owns that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from pi_lsp.compaction.errors import SummarizationError
from pi_lsp.compaction.file_ops import format_file_operations
from pi_lsp.compaction.models import CompactionDetails
from pi_lsp.compaction.prepare import CompactionPreparation
from pi_lsp.compaction.prompts import (
    INITIAL_INSTRUCTIONS,
    NO_PRIOR_HISTORY,
    SPLIT_TURN_HEADING,
    SYSTEM_PROMPT,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    conversation_block,
    previous_summary_block,
    with_focus,
)
from pi_lsp.compaction.serialize import serialize_messages
from pi_lsp.session.jsonl import JsonObject


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

"""Between loop runs: retries, overflow and length recovery, automatic compaction.

pi's rules (spec §11, 6.7): a transient provider error is retried after 2 s, 4 s, 8 s (abortable);
a context overflow is compacted and retried once per prompt; after a successful run, or before a
new prompt, the context is compacted when it passes ``window - reserve``. A failed reply stays in
the session file and on the branch; ``context_edit`` entries omit it (and its tool results) from
what the model sees before the next attempt, as pi 1.6.0 does.

What to do after a run (retry a transient error, recover from an overflow, or compact) is a
pure decision over the last assistant message (:func:`after_error`); :class:`Maintenance`
performs it, driving the loop runs its agent session hands it (:meth:`Maintenance.drive`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.agent.events import (
    AgentEvent,
    AutoCompactionEnd,
    AutoCompactionStart,
    AutoRetryEnd,
    AutoRetryStart,
)
from pi_lsp.agent.llm import ProviderFailure, is_context_overflow, is_retryable_message
from pi_lsp.agent.models import ModelInfo
from pi_lsp.compaction import (
    SummaryModel,
    TokenCounter,
    calculate_context_tokens,
    compact,
    should_compact,
    usage_known,
)
from pi_lsp.literals import CompactionReason
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import message_as
from pi_lsp.session.messages import AssistantMessage, ContextMessage, ToolResultMessage
from pi_lsp.settings import RetrySettings, Settings

Emit = Callable[[AgentEvent], None]
RunLoop = Callable[[Sequence[ContextMessage]], Awaitable[list[ContextMessage]]]
"""One run of the loop with these prompts (none: continue); returns the messages it added."""


@dataclass(frozen=True)
class RunValues:
    """What maintenance reads during one run, fixed when the run starts (settings included)."""

    settings: Settings
    model: ModelInfo
    abort: asyncio.Event
    """Set when the run is aborted: ends a retry's wait and a compaction."""
    summary_model: Callable[[], SummaryModel]
    """The model that writes a compaction summary (built when one is needed)."""


class Maintenance:
    """The run-to-run state of one agent session: retry attempt, overflow attempt, compacting.

    It is given the session's store, token counter and event emitter, and per call the run's
    :class:`RunValues`; it owns nothing of the agent session and imports nothing of it.
    """

    def __init__(self, store: SessionStore, counter: TokenCounter, emit: Emit) -> None:
        self.store = store
        self.counter = counter
        self.emit = emit
        self.retry_attempt = 0
        self.overflow_tried = False
        self.compacting = False
        """True while an automatic compaction runs."""

    async def drive(
        self,
        run: RunValues,
        prompts: Sequence[ContextMessage],
        loop: RunLoop,
        failure: Callable[[], ProviderFailure | None],
        queued: Callable[[], Sequence[ContextMessage]],
    ) -> None:
        """Run the loop, then retry, recover or compact as pi's rules say, until done.

        ``failure`` tells why the last model call failed; ``queued`` takes the steering or
        follow-up messages a compaction after the run lets through.
        """
        while True:
            added = await loop(prompts)
            prompts = []
            last = last_reply(added)
            if last is None or run.abort.is_set():
                return
            if last.get("stopReason") == "error":
                failed = failure()
                delay = failed.retry_after_ms if failed is not None else None
                if not await self.after_error(run, last, delay):
                    return
                continue
            self.succeeded()
            if last.get("stopReason") == "aborted":
                return
            if last.get("stopReason") == "length" and await self.after_length(run, last):
                continue
            if not await self.threshold(run, last):
                return
            prompts = queued()
            if not prompts:
                return

    def new_prompt(self) -> None:
        """A user prompt starts: overflow recovery may be tried again."""
        self.overflow_tried = False

    def succeeded(self) -> None:
        """A reply arrived: a retry sequence (if any) ended well."""
        if self.retry_attempt:
            self.emit(AutoRetryEnd(type="auto_retry_end", success=True, attempt=self.retry_attempt))
            self.retry_attempt = 0

    async def after_error(
        self, run: RunValues, last: AssistantMessage, retry_after_ms: int | None
    ) -> bool:
        """Handle a failed reply; True when the run should continue (retry or recovery).

        ``retry_after_ms`` is the delay the provider asked for, if any. The failed reply is
        omitted from the context (:meth:`drop_failed_reply`) before a retry.
        """
        probe: Mapping[str, object] = (
            {**last, "retryAfterMs": retry_after_ms} if retry_after_ms is not None else last
        )
        retry = run.settings.retry
        decision = after_error(probe, run.model, retry, self.retry_attempt)
        error = str(last.get("errorMessage", ""))
        if decision.action == "overflow":
            return await self._recover_overflow(run, error)
        if decision.action == "retry":
            self.retry_attempt = decision.attempt
            self.emit(
                AutoRetryStart(
                    type="auto_retry_start",
                    attempt=decision.attempt,
                    maxAttempts=retry.maxRetries,
                    delayMs=decision.delay_ms,
                    errorMessage=error,
                )
            )
            self.drop_failed_reply()
            if await _sleep(run.abort, decision.delay_ms / 1000):
                return True
            final = "Retry cancelled"
        elif decision.action == "give_up":
            final = error
        else:
            await self.threshold(run, last)
            return False
        self.emit(
            AutoRetryEnd(
                type="auto_retry_end", success=False, attempt=decision.attempt, finalError=final
            )
        )
        self.retry_attempt = 0
        return False

    async def _recover_overflow(self, run: RunValues, error: str) -> bool:
        return await self._compact_and_retry(
            run,
            "Context overflow recovery failed: the context is still too large after compacting "
            f"({error})",
        )

    async def _compact_and_retry(self, run: RunValues, failure: str) -> bool:
        """Omit the failed reply, compact and retry, once per prompt (``failure`` the second time).

        Shared by overflow and length recovery; True when the turn should continue.
        """
        if self.overflow_tried:
            self.emit(
                AutoCompactionEnd(
                    type="auto_compaction_end",
                    aborted=False,
                    willRetry=False,
                    errorMessage=failure,
                )
            )
            return False
        self.overflow_tried = True
        self.drop_failed_reply()
        if not await self.auto_compact(run, "overflow", will_retry=True):
            return False
        await asyncio.sleep(0.1)
        return True

    def drop_failed_reply(self) -> None:
        """Omit the failed reply and its tool results from the context, as pi 1.6.0 does.

        ``context_edit`` entries with ``replacement: null`` (pi's ``_omitRecoveryAttempt``):
        the attempt stays in the file and on the branch, and both programs leave it out of
        what the model sees.
        """
        store = self.store
        path = store.branch_path()
        at = next((i for i in range(len(path) - 1, -1, -1) if path[i].role == "assistant"), None)
        reply = message_as(path[at], AssistantMessage) if at is not None else None
        if at is None or reply is None:
            return
        calls = {
            block.get("id")
            for block in reply.get("content") or ()
            if isinstance(block, dict) and block.get("type") == "toolCall"
        }
        targets = [path[at].id]
        for record in path[at + 1 :]:
            if record.role == "assistant":
                break
            result = message_as(record, ToolResultMessage)
            if result is not None and result.get("toolCallId") in calls:
                targets.append(record.id)
        for target in targets:
            store.append_context_edit(target, None)

    async def after_length(self, run: RunValues, last: AssistantMessage) -> bool:
        """pi 1.6.0's recoverable length stop; True when the turn should continue.

        A reply cut below the model's output limit is omitted, the session compacted and the
        turn retried, once per prompt.
        """
        model = run.model
        usage = last.get("usage")
        output = usage.get("output") if isinstance(usage, dict) else None
        limit = model.max_output_tokens
        if not (
            _same_model(last, model) and isinstance(output, int) and limit > 0 and output < limit
        ):
            return False
        if not run.settings.compaction.enabled:
            return False
        return await self._compact_and_retry(
            run, "Truncated response recovery failed after one compact-and-retry attempt."
        )

    async def threshold(self, run: RunValues, last: AssistantMessage | None = None) -> bool:
        """pi's threshold check (after a run, before a prompt); True when it compacted."""
        settings = run.settings.compaction
        if not settings.enabled:
            return False
        store = self.store
        if last is None:
            last = last_reply(store.context().messages)
        if last is None or not usage_known(store):
            return False
        if last.get("stopReason") == "error":
            tokens: int | None = self.counter.estimate(store.context()).tokens
        else:
            tokens = usage_tokens(last)
        if tokens is None or not should_compact(tokens, run.model.context_window, settings):
            return False
        return await self.auto_compact(run, "threshold", will_retry=False)

    async def auto_compact(
        self, run: RunValues, reason: CompactionReason, *, will_retry: bool
    ) -> bool:
        """Compact with ``auto_compaction_start``/``_end`` events; True when it worked."""
        self.emit(AutoCompactionStart(type="auto_compaction_start", reason=reason))
        self.compacting = True
        try:
            result = await compact(
                self.store,
                run.summary_model(),
                run.settings.compaction,
                counter=self.counter,
            )
        except Exception as exc:  # any failure is reported, never raised out of the run
            aborted = run.abort.is_set()
            prefix = (
                "Context overflow recovery failed: "
                if reason == "overflow"
                else "Auto-compaction failed: "
            )
            message = None if aborted else f"{prefix}{exc}"
            end = AutoCompactionEnd(type="auto_compaction_end", aborted=aborted, willRetry=False)
            if message:
                end["errorMessage"] = message
            self.emit(end)
            return False
        finally:
            self.compacting = False
        payload = result.model_dump(mode="json", by_alias=True)
        self.emit(
            AutoCompactionEnd(
                type="auto_compaction_end", result=payload, aborted=False, willRetry=will_retry
            )
        )
        return True


async def _sleep(abort: asyncio.Event, seconds: float) -> bool:
    """Sleep unless aborted; False when the abort came first."""
    try:
        await asyncio.wait_for(abort.wait(), seconds)
    except TimeoutError:
        return True
    return False


Action = Literal["none", "retry", "give_up", "overflow", "threshold"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The next step after a run ended with ``message``."""

    action: Action
    delay_ms: int = 0
    attempt: int = 0


def retry_delay_ms(settings: RetrySettings, attempt: int) -> int:
    """``baseDelayMs × 2^(attempt − 1)``: 2 s, 4 s, 8 s by default, at most ``maxAgentDelayMs``."""
    return int(min(settings.baseDelayMs * 2 ** (attempt - 1), settings.maxAgentDelayMs))


def after_error(
    message: Mapping[str, object], model: ModelInfo, settings: RetrySettings, attempt: int
) -> Decision:
    """For a reply that ended in an error: overflow recovery, a retry, or giving up.

    ``message`` is the assistant message, with the delay the provider asked for (if any) as
    ``retryAfterMs``.
    """
    if _same_model(message, model) and is_context_overflow(message, model.context_window):
        return Decision("overflow")
    if not settings.enabled or not is_retryable_message(message, model.context_window):
        return Decision("none")
    attempt += 1
    if attempt > settings.maxRetries:
        return Decision("give_up", attempt=settings.maxRetries)
    requested = message.get("retryAfterMs")
    if isinstance(requested, int) and requested > settings.provider.maxRetryDelayMs:
        return Decision("give_up", attempt=attempt)
    return Decision("retry", delay_ms=retry_delay_ms(settings, attempt), attempt=attempt)


def last_reply(messages: Sequence[ContextMessage]) -> AssistantMessage | None:
    """The last assistant message of ``messages``, if any."""
    for index in range(len(messages) - 1, -1, -1):  # ``reversed`` would lose the type
        message = messages[index]
        if message["role"] == "assistant":
            return message
    return None


def _same_model(message: Mapping[str, object], model: ModelInfo) -> bool:
    return (
        message.get("provider") == model.ref.provider and message.get("model") == model.ref.model_id
    )


def usage_tokens(message: AssistantMessage) -> int | None:
    """Context size a reply's ``usage`` reports (``totalTokens`` or the sum of the parts)."""
    usage: Any = message.get("usage")
    if not isinstance(usage, dict):
        return None
    return calculate_context_tokens(usage)

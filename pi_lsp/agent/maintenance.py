"""Retries, overflow recovery and automatic compaction around an agent session's runs.

pi's rules (spec §11, 6.7): a transient provider error is retried after 2 s, 4 s, 8 s (abortable);
a context overflow is compacted and retried once per prompt; after a successful run, or before a
new prompt, the context is compacted when it passes ``window - reserve``. A failed reply stays in
the session file on a side branch: the leaf moves back to its parent before the next attempt.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pi_lsp.agent.events import event
from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.recovery import after_error, usage_tokens
from pi_lsp.compaction import compact, should_compact, usage_known
from pi_lsp.literals import CompactionReason
from pi_lsp.session.jsonl import JsonObject

if TYPE_CHECKING:
    from pi_lsp.agent.agent_session import AgentSession


class Maintenance:
    """The run-to-run state of one agent session: retry attempt and overflow attempt."""

    def __init__(self, agent: AgentSession) -> None:
        self.agent = agent
        self.retry_attempt = 0
        self.overflow_tried = False
        self.last_entry: str | None = None
        """Entry id of the last message persisted (the reply to move away from on failure)."""
        self.retry_after_ms: int | None = None
        """Delay the provider asked for on the last failure, if any."""

    def new_prompt(self) -> None:
        """A user prompt starts: overflow recovery may be tried again."""
        self.overflow_tried = False

    def succeeded(self) -> None:
        """A reply arrived: a retry sequence (if any) ended well."""
        if self.retry_attempt:
            self.agent.emit(event("auto_retry_end", success=True, attempt=self.retry_attempt))
            self.retry_attempt = 0

    async def after_error(self, model: ModelInfo, last: JsonObject) -> bool:
        """Handle a failed reply; True when the run should continue (retry or recovery)."""
        agent = self.agent
        requested = self.retry_after_ms
        probe = {**last, "retryAfterMs": requested} if requested is not None else last
        decision = after_error(probe, model, agent.config.settings.retry, self.retry_attempt)
        error = str(last.get("errorMessage", ""))
        if decision.action == "overflow":
            return await self._recover_overflow(error)
        if decision.action == "retry":
            self.retry_attempt = decision.attempt
            agent.emit(
                event(
                    "auto_retry_start",
                    attempt=decision.attempt,
                    maxAttempts=agent.config.settings.retry.maxRetries,
                    delayMs=decision.delay_ms,
                    errorMessage=error,
                )
            )
            self.drop_failed_reply()
            if await self._sleep(decision.delay_ms / 1000):
                return True
            final = "Retry cancelled"
        elif decision.action == "give_up":
            final = error
        else:
            await self.threshold(last)
            return False
        agent.emit(
            event("auto_retry_end", success=False, attempt=decision.attempt, finalError=final)
        )
        self.retry_attempt = 0
        return False

    async def _recover_overflow(self, error: str) -> bool:
        if self.overflow_tried:
            self.agent.emit(
                event(
                    "auto_compaction_end",
                    aborted=False,
                    willRetry=False,
                    errorMessage="Context overflow recovery failed: the context is still too "
                    f"large after compacting ({error})",
                )
            )
            return False
        self.overflow_tried = True
        self.drop_failed_reply()
        if not await self.auto_compact("overflow", will_retry=True):
            return False
        await asyncio.sleep(0.1)
        return True

    def drop_failed_reply(self) -> None:
        """Move the leaf off the failed reply: it stays in the file, not in the context."""
        store = self.agent.store
        record = store.get(self.last_entry) if self.last_entry else None
        if record is None:
            return
        if record.parent_id is None:
            store.reset_leaf()
        else:
            store.branch(record.parent_id)

    async def _sleep(self, seconds: float) -> bool:
        """Sleep unless aborted; False when the abort came first."""
        try:
            await asyncio.wait_for(self.agent.abort_event.wait(), seconds)
        except TimeoutError:
            return True
        return False

    async def threshold(self, last: JsonObject | None = None) -> bool:
        """pi's threshold check (after a run, before a prompt); True when it compacted."""
        agent = self.agent
        model = agent.model
        if model is None or not agent.config.settings.compaction.enabled:
            return False
        if last is None:
            messages = agent.store.context().messages
            last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
        if last is None or not usage_known(agent.store):
            return False
        if last.get("stopReason") == "error":
            tokens: int | None = agent.config.counter.estimate(agent.store.context()).tokens
        else:
            tokens = usage_tokens(last)
        settings = agent.compaction_settings()
        if tokens is None or not should_compact(tokens, model.context_window, settings):
            return False
        return await self.auto_compact("threshold", will_retry=False)

    async def auto_compact(self, reason: CompactionReason, *, will_retry: bool) -> bool:
        """Compact with ``auto_compaction_start``/``_end`` events; True when it worked."""
        agent = self.agent
        agent.emit(event("auto_compaction_start", reason=reason))
        agent.compacting = True
        try:
            model = agent.require_model()
            result = await compact(
                agent.store,
                agent.config.summary_model(model, agent.abort_event),
                agent.compaction_settings(),
                counter=agent.config.counter,
            )
        except Exception as exc:  # any failure is reported, never raised out of the run
            aborted = agent.abort_event.is_set()
            prefix = (
                "Context overflow recovery failed: "
                if reason == "overflow"
                else "Auto-compaction failed: "
            )
            message = None if aborted else f"{prefix}{exc}"
            end = event("auto_compaction_end", aborted=aborted, willRetry=False)
            agent.emit({**end, "errorMessage": message} if message else end)
            return False
        finally:
            agent.compacting = False
        payload = result.model_dump(mode="json", by_alias=True)
        agent.emit(
            event("auto_compaction_end", result=payload, aborted=False, willRetry=will_retry)
        )
        return True

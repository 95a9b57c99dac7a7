"""What an open session reports to editors: its state and the results of its requests.

:class:`~pi_lsp.daemon.live_session.LiveSession` builds its answers through these models and
dumps them, so the model is the one definition of each shape; the ``pi/…`` method table
(:mod:`pi_lsp.protocol.payloads`) uses the same classes for ``schemas/`` and the docs. Field
names are camelCase, as LSP's own are.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from pi_lsp.compaction.models import ContextUsage
from pi_lsp.literals import ThinkingLevel


class Result(BaseModel):
    """Base of every result and notification payload: fields a newer daemon adds are kept."""

    model_config = ConfigDict(extra="allow")


class ModelState(Result):
    """The model a session uses."""

    provider: str
    modelId: str
    contextWindow: int
    reasoning: bool


class SessionState(Result):
    """Everything an editor shows about a session."""

    sessionId: str
    sessionFile: str | None
    sessionName: str | None
    cwd: str
    folder: str
    model: ModelState | None
    thinkingLevel: ThinkingLevel
    availableThinkingLevels: list[ThinkingLevel]
    leafId: str | None
    isStreaming: bool
    isCompacting: bool
    steeringQueue: list[str]
    followUpQueue: list[str]
    contextUsage: ContextUsage | None
    entryCount: int
    lastSeq: int
    """Sequence number of the last event sent for this session."""


class PromptResult(Result):
    """Acknowledges a prompt: the stored user entry, or that it was queued."""

    queued: bool
    userEntryId: str | None


class QueueResult(Result):
    """The message was queued."""

    queued: bool


class AbortResult(Result):
    """The turn stopped; these queued messages were dropped (to put back in the editor)."""

    queuedTexts: list[str]


class BranchResult(Result):
    """Where the leaf is now."""

    leafId: str | None
    editorText: str | None
    """Text of the user message navigated to, for editing and resending."""
    summaryEntryId: str | None
    moved: bool


class LabelResult(Result):
    """The label entry written."""

    labelEntryId: str

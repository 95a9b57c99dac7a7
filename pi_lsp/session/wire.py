"""pydantic models of what the session layer hands out: list metadata, trees and contexts.

They fix the JSON shapes the CLI prints (the corpus field names) and that later issues send over
the wire; ``schemas/`` is generated from them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from pi_lsp.session.messages import ContextMessage


class SessionInfo(BaseModel):
    """pi's ``SessionInfo`` for one session file (spec §2)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    id: str
    cwd: str
    """Header cwd, ``""`` when missing."""
    name: str | None = None
    """Latest non-empty ``session_info`` name (any branch)."""
    parentSessionPath: str | None = None
    created: str | None = None
    """Header timestamp (ISO); null when unparsable."""
    modified: str
    """Latest user/assistant message time, else the header time, else the file mtime (ISO)."""
    messageCount: int
    """``message`` entries of any role on every branch."""
    firstMessage: str
    """Text of the first user message, or ``(no messages)``."""
    allMessagesText: str
    """Texts of all user and assistant messages joined by spaces (for search)."""


class TreeNodeOut(BaseModel):
    """One node of ``pi-lsp sessions tree --json``."""

    id: str
    parentId: str | None
    type: str
    timestamp: str | None = None
    label: str | None
    children: list[str]


class TreeOut(BaseModel):
    """Roots (file order, orphans included) and nodes in depth-first pre-order."""

    roots: list[str]
    nodes: list[TreeNodeOut]


class ModelOut(BaseModel):
    """Provider and model id."""

    provider: Any
    modelId: Any


class ContextOut(BaseModel):
    """pi's ``buildSessionContext`` result: ``pi-lsp sessions context --json``."""

    messages: list[ContextMessage]
    thinkingLevel: Any
    model: ModelOut | None

"""What the session layer hands out: list metadata, trees and contexts.

They fix the JSON shapes the CLI prints (the corpus field names) and the daemon sends;
``schemas/`` is generated from them. :class:`SessionInfo` is a model (the lister builds it); the
tree and context shapes are TypedDicts over the plain JSON the CLI prints.
"""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

from pi_lsp.session.messages import OPEN, ContextMessage


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


@OPEN
class TreeNodeOut(TypedDict):
    """One node of ``pi-lsp sessions tree --json``."""

    id: str
    parentId: str | None
    type: str
    timestamp: NotRequired[str | None]
    label: str | None
    children: list[str]


@OPEN
class TreeOut(TypedDict):
    """Roots (file order, orphans included) and nodes in depth-first pre-order."""

    roots: list[str]
    nodes: list[TreeNodeOut]


@OPEN
class ModelOut(TypedDict):
    """Provider and model id (from a ``model_change`` entry or an assistant message)."""

    provider: Any
    modelId: Any


@OPEN
class ContextOut(TypedDict):
    """pi's ``buildSessionContext`` result: ``pi-lsp sessions context --json``."""

    messages: list[ContextMessage]
    thinkingLevel: Any
    model: ModelOut | None

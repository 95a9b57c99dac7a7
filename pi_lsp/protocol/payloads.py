"""Every ``pi/…`` method's params and result, and the notifications and server requests.

Params are pydantic models: they validate what editors send (a bad field is a ``-32602`` error
naming it). What the daemon sends without validating (``pi/event``, ``pi/requestPermission``)
are TypedDicts over the plain JSON, built through their type. All of them document every field
and generate ``schemas/`` and ``docs/protocol.md``'s tables. Field names are camelCase, as LSP's
own are. What an open session builds (its state, its answers, its events and tree nodes) lives
with it in :mod:`pi_lsp.daemon.views`.
"""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from pi_lsp.daemon.views import Result as _Result
from pi_lsp.daemon.views import SessionState, TreeNode, WireEvent
from pi_lsp.daemon.workspaces import ModelInfoOut
from pi_lsp.literals import PermissionDecision, PermissionKind, StreamingBehavior, ThinkingLevel
from pi_lsp.session.entries import SessionEntry
from pi_lsp.session.listing import SessionInfo
from pi_lsp.session.messages import OPEN


class _Params(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# ----------------------------------------------------------------- params


class FolderParams(_Params):
    """Which workspace folder; the first one when omitted."""

    folder: str | None = None
    """A workspace folder URI as sent in ``initialize`` (``file:///…``)."""


class OpenParams(FolderParams):
    """Open an existing session file."""

    path: str = Field(min_length=1)
    """Absolute path of the ``.jsonl`` session file."""


class SessionParams(_Params):
    """Any request about one open session."""

    sessionId: str = Field(min_length=1)


class RenameParams(SessionParams):
    """Name the session (a ``session_info`` entry)."""

    name: str = Field(min_length=1)


class ImageIn(_Params):
    """An image attached to a prompt."""

    data: str
    """Base64 bytes."""
    mimeType: str


class PromptParams(SessionParams):
    """Start a turn, or queue the message if one is running and ``streamingBehavior`` says how."""

    text: str
    images: list[ImageIn] = []
    streamingBehavior: StreamingBehavior | None = None


class QueueParams(SessionParams):
    """A steering or follow-up message for the running turn."""

    text: str
    images: list[ImageIn] = []


class BranchParams(SessionParams):
    """Move to any entry of the tree."""

    entryId: str = Field(min_length=1)
    summarize: bool = False
    """Summarize the branch being left into a ``branch_summary`` entry."""
    focus: str | None = None
    """Extra instructions for that summary."""
    label: str | None = None
    """Bookmark to set on the summary (or on the target when no summary is written)."""


class EntryParams(SessionParams):
    """An entry of an open session."""

    entryId: str = Field(min_length=1)


class LabelParams(EntryParams):
    """Set (text) or clear (null or empty) an entry's bookmark."""

    label: str | None = None


class CompactParams(SessionParams):
    """Compact now; progress is reported with ``$/progress`` when the client supports it."""

    focus: str | None = None
    """What the summary should concentrate on (pi's ``/compact <text>``)."""


class SetModelParams(SessionParams):
    """Switch the model."""

    model: str = Field(min_length=3)
    """``provider/model``, e.g. ``anthropic/claude-sonnet-4-5``."""


class SetThinkingParams(SessionParams):
    """Change the thinking level (clamped to what the model offers)."""

    level: ThinkingLevel


# ----------------------------------------------------------------- results


class SessionList(_Result):
    """pi's list metadata, newest first."""

    sessions: list[SessionInfo]


class TreeResult(_Result):
    """Every entry; nodes in file order, roots (and orphans) in file order."""

    leafId: str | None
    roots: list[str]
    nodes: list[TreeNode]


class MessagesResult(_Result):
    """The entries whose messages form the context at the leaf, oldest first.

    ``message`` entries carry the message; a ``compaction`` stands for its summary, a
    ``branch_summary`` for the branch summary and a ``custom_message`` for its content.
    """

    sessionId: str
    leafId: str | None
    entries: list[SessionEntry]


class ForkResult(_Result):
    """The new session file and, for a user-message target, its text."""

    session: SessionState
    editorText: str | None


class ModelsResult(_Result):
    """Models of providers with credentials set, plus configured ones."""

    models: list[ModelInfoOut]


class Empty(_Result):
    """No result."""


# ----------------------------------------------------------------- notifications, server requests


@OPEN
class EventNotification(TypedDict):
    """``pi/event``: one event of a session, numbered without gaps from 1."""

    sessionId: str
    seq: int
    event: WireEvent


@OPEN
class PermissionRequestParams(TypedDict):
    """``pi/requestPermission`` (server to client): may the agent do this?"""

    sessionId: str
    kind: PermissionKind
    """``bash``: a shell command; ``writeOutsideWorkspace``: a write outside every folder (or
    to a file with several names, or any write with no folder open); ``writeProtected``: a
    write inside a folder to a file that runs code or configures tools (``.git``, ``.pi`` …);
    ``readSecret``: a read of a secret source (an environment, ``auth.json``, ``.env`` …)."""
    toolName: str
    toolCallId: str
    detail: str
    """The command, or the absolute real path (links followed) to be written or read."""
    cwd: str
    reason: NotRequired[str | None]
    """Why a path is asked about, for the prompt (absent for ``bash``)."""


@OPEN
class PermissionResult(TypedDict):
    """The user's answer; anything else (or no answer in time) denies."""

    decision: PermissionDecision


def schema_models() -> dict[str, Any]:
    """Types of the notification and server-to-client request, for ``schemas/``."""
    return {
        "pi-event": EventNotification,
        "pi-request-permission": PermissionRequestParams,
        "pi-request-permission-result": PermissionResult,
    }

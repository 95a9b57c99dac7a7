"""Every ``pi/…`` method's params and result, and the notifications and server requests.

Params are pydantic models: they validate what editors send (a bad field is a ``-32602`` error
naming it). What the daemon sends without validating (tree nodes, ``pi/event`` payloads,
``pi/requestPermission``) are TypedDicts over the plain JSON, built through their type. All of
them document every field and generate ``schemas/`` and ``docs/protocol.md``'s tables. Field
names are camelCase, as LSP's own are. The results an open session builds (its state, prompt
and queue answers…) live with it in :mod:`pi_lsp.daemon.views`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from pi_lsp.agent import events as agent_events
from pi_lsp.compaction.models import CompactionResult
from pi_lsp.daemon.views import Result as _Result
from pi_lsp.daemon.views import SessionState
from pi_lsp.literals import PermissionDecision, PermissionKind, StreamingBehavior, ThinkingLevel
from pi_lsp.session.entries import SessionEntry, SessionInfo
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


@OPEN
class TreeNode(TypedDict):
    """One entry of the tree."""

    id: str
    parentId: str | None
    type: str
    role: str | None
    """``message.role`` for message entries."""
    preview: str
    """One line of text describing the entry."""
    label: str | None
    timestamp: str
    children: list[str]
    """Child ids, oldest first."""
    onActivePath: bool
    targetId: str | None
    """``label`` and ``context_edit`` entries: the entry they act on."""
    targetLabel: str | None
    """``label`` entries: the label they set on ``targetId`` (null: they clear it)."""


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


class ModelInfoOut(_Result):
    """A model the daemon can use."""

    id: str
    """``provider/model``."""
    provider: str
    modelId: str


class ModelsResult(_Result):
    """Models of providers with credentials set, plus configured ones."""

    models: list[ModelInfoOut]


class Empty(_Result):
    """No result."""


# ----------------------------------------------------------------- notifications, server requests


@OPEN
class EntryAppended(TypedDict):
    """A new entry (from this daemon, or another process appending to the same file)."""

    type: Literal["entry_appended"]
    entry: TreeNode
    external: bool


@OPEN
class ForeignEntries(TypedDict):
    """Another program appended to the session file while this daemon ran a turn.

    The pi CLI takes no lock, so it may write during a turn here. Its entries are in the tree
    (each was also sent as ``entry_appended`` with ``external: true``), but this turn's entries
    and the leaf stayed on this daemon's own chain: the two turns are sibling branches, and
    ``leafId`` is still this daemon's. Sent once, before the turn's ``agent_end``.
    """

    type: Literal["foreign_entries"]
    entryIds: list[str]
    """The other program's entries, in file order."""
    leafId: str | None
    """This daemon's leaf (on its own chain)."""


@OPEN
class StateChanged(TypedDict):
    """The session's state changed."""

    type: Literal["state_changed"]
    state: SessionState


@OPEN
class CompactionStart(TypedDict):
    """A manual compaction started."""

    type: Literal["compaction_start"]
    reason: Literal["manual"]


@OPEN
class CompactionEnd(TypedDict):
    """A manual compaction ended."""

    type: Literal["compaction_end"]
    result: NotRequired[CompactionResult | None]
    errorMessage: NotRequired[str | None]


@OPEN
class TurnError(TypedDict):
    """A turn stopped on an internal error."""

    type: Literal["error"]
    message: str


@OPEN
class MessageUpdateOut(TypedDict):
    """``message_update`` as editors receive it: the streamed change only.

    pi's event also carries the whole partial message; the daemon leaves it out (see
    :func:`pi_lsp.daemon.live_session.wire_event`), so a delta costs a few bytes, not the
    message so far. ``message_end`` carries the complete message.
    """

    type: Literal["message_update"]
    assistantMessageEvent: agent_events.AssistantMessageEvent
    """pi's sub-event (``text_delta``, ``thinking_delta``, ``toolcall_delta``, … with
    ``contentIndex``), without its ``partial`` message."""


WireAgentEvent = Annotated[
    agent_events.AgentStart
    | agent_events.AgentEnd
    | agent_events.TurnStart
    | agent_events.TurnEnd
    | agent_events.MessageStart
    | MessageUpdateOut
    | agent_events.MessageEnd
    | agent_events.ToolExecutionStart
    | agent_events.ToolExecutionUpdate
    | agent_events.ToolExecutionEnd
    | agent_events.AutoCompactionStart
    | agent_events.AutoCompactionEnd
    | agent_events.AutoRetryStart
    | agent_events.AutoRetryEnd,
    Field(discriminator="type"),
]
"""pi's agent events as sent in ``pi/event`` (streaming updates without the partial message)."""


DaemonEvent = Annotated[
    EntryAppended | ForeignEntries | StateChanged | CompactionStart | CompactionEnd | TurnError,
    Field(discriminator="type"),
]
"""Events of the daemon itself (not pi's agent)."""

WireEvent = WireAgentEvent | DaemonEvent
"""Every event a ``pi/event`` notification carries."""


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

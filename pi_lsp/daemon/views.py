"""What editors see of an open session: its state, its requests' results, its events, its tree.

:class:`~pi_lsp.daemon.live_session.LiveSession` builds every answer and event through these
types, so each shape has one definition, which the ``pi/…`` method table
(:mod:`pi_lsp.protocol.payloads`) also uses for ``schemas/`` and the docs. Results are pydantic
models (dumped by alias); events and tree nodes are TypedDicts over the plain JSON, as pi's agent
events are (:mod:`pi_lsp.agent.events`). Field names are camelCase, as LSP's own are.

The tree is kept as pre-encoded JSON and updated incrementally (:class:`TreeView`): a tree
request on a 22,000-entry session must answer in milliseconds while a turn streams, so every
node's JSON is encoded once and re-encoded only when something about it changes: a new child, a
label, the node entering or leaving the active path. A request then joins cached bytes. Nodes
are listed in file order (each names its parent and children); ``roots`` are in file order.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, GetPydanticSchema
from typing_extensions import TypedDict

from pi_lsp.agent import events as agent_events
from pi_lsp.compaction.models import CompactionResult, ContextUsage
from pi_lsp.literals import ThinkingLevel
from pi_lsp.session import SessionStore
from pi_lsp.session.entries import LabelEntry, entry_as, target_of
from pi_lsp.session.jsonl import JsonObject, Record, dumps
from pi_lsp.session.messages import OPEN
from pi_lsp.session.paths import parse_iso_ms
from pi_lsp.session.projection import entry_preview


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


def _dump_of(model: type[BaseModel]) -> GetPydanticSchema:
    """Schema of ``model`` for a field that holds its dump (plain JSON at run time)."""
    return GetPydanticSchema(lambda _source, handler: handler(model))


SessionStateJson = Annotated[JsonObject, _dump_of(SessionState)]
""":class:`SessionState` dumped by alias, as events carry it."""
CompactionResultJson = Annotated[JsonObject, _dump_of(CompactionResult)]
""":class:`~pi_lsp.compaction.models.CompactionResult` dumped by alias (``mode="json"``)."""


# ----------------------------------------------------------------- the tree and the events


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
    state: SessionStateJson


@OPEN
class CompactionStart(TypedDict):
    """A manual compaction started."""

    type: Literal["compaction_start"]
    reason: Literal["manual"]


@OPEN
class CompactionEnd(TypedDict):
    """A manual compaction ended."""

    type: Literal["compaction_end"]
    result: NotRequired[CompactionResultJson | None]
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


_encode = dumps  # msgspec, or escapes for lone surrogates


BLOCK = 256
"""Nodes per cached block of joined JSON."""


def _order_key(record: Record) -> tuple[bool, int]:
    ms = parse_iso_ms(record.timestamp)
    return (ms is None, ms or 0)


class TreeView:
    """Cached node JSON for one store; call :meth:`render` for the whole tree."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._position: dict[str, int] = {}
        self._fragments: list[bytes] = []
        self._children: dict[str, list[Record]] = {}
        self._roots: list[str] = []
        self._previews: dict[str, str] = {}
        self._dirty: set[str] = set()
        self._path_leaf: str | None = None
        self._path: set[str] = set()
        self._blocks: list[bytes] = []
        """Joined fragments of :data:`BLOCK` consecutive nodes; only stale blocks are re-joined."""
        self._stale_blocks: set[int] = set()
        self._rendered: bytes | None = None
        self.add(store.records)
        store.add_listener(lambda records, _external: self.add(records))

    def add(self, records: list[Record]) -> None:
        """Take new entries into the view (listeners call this as entries are appended)."""
        by_id = self.store.get
        for record in records:
            if by_id(record.id) is not record:
                continue  # a line whose id a later duplicate replaced
            if record.id in self._position:  # a duplicate id: the later line replaces the node
                old = self._position[record.id]
                self._fragments[old] = b""
                self._stale_blocks.add(old // BLOCK)
            self._position[record.id] = len(self._fragments)
            self._fragments.append(b"")
            self._dirty.add(record.id)
            parent = record.parent_id
            if parent is None or parent == record.id or self.store.get(parent) is None:
                self._roots.append(record.id)
            else:
                self._children.setdefault(parent, []).append(record)
                self._dirty.add(parent)
            if record.type == "label" and (target := target_of(record)) is not None:
                self._dirty.add(target)

    def node(self, entry_id: str) -> TreeNode:
        """One node as the protocol describes it."""
        record = self.store.require(entry_id)
        return self._node(record, entry_id in self._current_path())

    def _node(self, record: Record, on_path: bool) -> TreeNode:
        preview = self._previews.get(record.id)
        if preview is None:
            preview = self._previews[record.id] = entry_preview(record)
        kids = self._children.get(record.id, [])
        if len(kids) > 1:
            kids = sorted(kids, key=_order_key)
        label = entry_as(record, LabelEntry)
        sets = label.get("label") if label is not None else None
        node: TreeNode = {
            "id": record.id,
            "parentId": record.parent_id,
            "type": record.type,
            "role": record.role,
            "preview": preview,
            "label": self.store.label_of(record.id),
            "timestamp": record.timestamp,
            "children": [k.id for k in kids],
            "onActivePath": on_path,
            "targetId": target_of(record),
            "targetLabel": sets if isinstance(sets, str) and sets else None,
        }
        return node

    def _current_path(self) -> set[str]:
        leaf = self.store.leaf_id
        if leaf != self._path_leaf:
            record = self.store.get(leaf) if leaf is not None else None
            if leaf is not None and record is not None and record.parent_id == self._path_leaf:
                new_path = self._path | {leaf}  # one step down the same path: no walk
            else:
                new_path = {r.id for r in self.store.branch_path()}
            self._dirty |= new_path ^ self._path
            self._path, self._path_leaf = new_path, leaf
        return self._path

    def render(self) -> bytes:
        """``{"leafId", "roots", "nodes"}`` as JSON bytes (cached until something changes)."""
        path = self._current_path()
        if not self._dirty and self._rendered is not None:
            return self._rendered
        get = self.store.get
        for entry_id in self._dirty:
            record = get(entry_id)
            position = self._position.get(entry_id)
            if record is not None and position is not None:
                self._fragments[position] = _encode(self._node(record, entry_id in path))
                self._stale_blocks.add(position // BLOCK)
        self._dirty.clear()
        blocks = self._blocks
        while len(blocks) * BLOCK < len(self._fragments):
            self._stale_blocks.add(len(blocks))
            blocks.append(b"")
        for index in self._stale_blocks:
            chunk = self._fragments[index * BLOCK : (index + 1) * BLOCK]
            blocks[index] = b",".join(f for f in chunk if f)
        self._stale_blocks.clear()
        nodes = b",".join(b for b in blocks if b)
        head = _encode({"leafId": self.store.leaf_id, "roots": self._roots})
        self._rendered = head[:-1] + b',"nodes":[' + nodes + b"]}"
        return self._rendered

    async def warm(self, batch: int = 500) -> None:
        """Encode every node ahead of the first request, yielding to the event loop often."""
        records = self.store.records
        for start in range(0, len(records), batch):
            for record in records[start : start + batch]:
                if record.id not in self._previews:
                    self._previews[record.id] = entry_preview(record)
            await asyncio.sleep(0)
        self.render()

"""pi's session file lines: the header and every entry type, as TypedDicts over the plain JSON.

Spec §1.3–1.4, plus pi 1.6.0's ``context_edit`` and ``usage`` entries and ``system`` messages.
A loaded entry is the parsed JSON of its line (unknown fields survive, D1); these types name its
keys, and ``schemas/session-line.schema.json`` is generated from them. Legacy version-1 lines
(no ``id``/``parentId``) have their own types so that every line pi ever wrote validates.

A record holds an entry of any type, known or not (:data:`AnyEntry`); :func:`known`,
:func:`entry_as` and :func:`message_as` narrow it by the record's indexed type and role. Last,
the context's shape as the CLI prints it (the corpus field names; the list and tree shapes live
with their builders, :mod:`~pi_lsp.session.listing` and :mod:`~pi_lsp.session.tree`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, TypeVar, cast

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

from pi_lsp.session.messages import (
    OPEN,
    AssistantMessage,
    BashExecutionMessage,
    ContextMessage,
    CustomMessage,
    StoredMessage,
    SystemMessage,
    ToolResultMessage,
    UserBlock,
    UserMessage,
)

if TYPE_CHECKING:
    from pi_lsp.session.jsonl import Record

CURRENT_VERSION = 3
"""Version pi v0.58.3 writes; older files are migrated on load (spec §1.7)."""


@OPEN
class SessionHeader(TypedDict):
    """First line of every session file."""

    type: Literal["session"]
    version: NotRequired[int | None]
    """3 for current files; absent in version-1 files."""
    id: str
    """Session id (a v4 UUID unless the creator chose one)."""
    timestamp: str
    """ISO time the session was created; also the file-name prefix."""
    cwd: str
    """Working directory the session belongs to."""
    parentSession: NotRequired[str | None]
    """Absolute path of the file this one was branched or forked from."""


def as_header(value: object) -> SessionHeader | None:
    """``value`` (a parsed line) as a session header: an object of type ``session`` with an id.

    None when it is not one. Nothing more is checked: pi_lsp takes what it reads as pi does
    (``JSON.parse`` as the interface), so foreign fields and odd values survive.
    """
    if (
        isinstance(value, dict)
        and value.get("type") == "session"
        and isinstance(value.get("id"), str)
    ):
        return cast(SessionHeader, value)
    return None


@OPEN
class _Entry(TypedDict):
    id: Annotated[str, Field(description="8 lowercase hex characters, unique within the file.")]
    parentId: Annotated[
        str | None, Field(description="Id of the entry this one follows; null for a root.")
    ]
    timestamp: Annotated[
        str, Field(description="ISO time of the append (UTC, milliseconds, ``Z``).")
    ]


@OPEN
class MessageEntry(_Entry):
    """A conversation message (user, assistant, tool result, bash execution, custom)."""

    type: Literal["message"]
    message: StoredMessage


@OPEN
class ThinkingLevelChangeEntry(_Entry):
    """The thinking level changed from here on."""

    type: Literal["thinking_level_change"]
    thinkingLevel: str


@OPEN
class ModelChangeEntry(_Entry):
    """The model changed from here on."""

    type: Literal["model_change"]
    provider: str
    modelId: str


@OPEN
class CompactionEntry(_Entry):
    """A checkpoint summary replacing the history before ``firstKeptEntryId``."""

    type: Literal["compaction"]
    summary: str
    firstKeptEntryId: str
    """First entry kept verbatim after the summary."""
    tokensBefore: int
    """Estimated context size when the compaction was made."""
    details: NotRequired[Any]
    """``{readFiles, modifiedFiles}`` when pi made it; anything when an extension did."""
    fromHook: NotRequired[bool | None]
    """False when pi generated the summary, true when an extension supplied it."""
    usage: NotRequired[Any]
    """Provider usage of the summary call (pi 1.6.0)."""
    systemMessage: NotRequired[SystemMessage | None]
    """pi 1.6.0: every system message before it replayed into one; it opens the context."""


@OPEN
class BranchSummaryEntry(_Entry):
    """What an abandoned branch learned, hung where the conversation resumed."""

    type: Literal["branch_summary"]
    fromId: str
    """The leaf the branch was left at (pi 1.6.0; v0.58.3 wrote the branch point), or
    ``"root"``."""
    summary: str
    details: NotRequired[Any]
    fromHook: NotRequired[bool | None]
    usage: NotRequired[Any]
    """Provider usage of the summary call (pi 1.6.0)."""


@OPEN
class ContextEditEntry(_Entry):
    """pi 1.6.0: changes what an earlier entry of the branch contributes to the context."""

    type: Literal["context_edit"]
    targetId: str
    replacement: dict[str, Any] | None
    """``null`` omits the target; ``{content}`` replaces only its content."""


@OPEN
class UsageEntry(_Entry):
    """pi 1.6.0: model usage outside any message (cache warming); never in the context."""

    type: Literal["usage"]
    kind: str
    provider: str
    model: str
    usage: Any
    note: NotRequired[str | None]


@OPEN
class CustomEntry(_Entry):
    """Extension state; never part of the model context."""

    type: Literal["custom"]
    customType: str
    data: NotRequired[Any]


@OPEN
class CustomMessageEntry(_Entry):
    """An extension message that enters the context as a user message."""

    type: Literal["custom_message"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    """Whether a UI shows it; the model always sees it."""
    details: NotRequired[Any]


@OPEN
class LabelEntry(_Entry):
    """Sets (non-empty ``label``) or clears (absent or empty) the bookmark on ``targetId``."""

    type: Literal["label"]
    targetId: str
    label: NotRequired[str | None]


@OPEN
class SessionInfoEntry(_Entry):
    """Display name of the session (the latest one wins; an empty name clears it)."""

    type: Literal["session_info"]
    name: NotRequired[str | None]


Entry = (
    MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | ContextEditEntry
    | UsageEntry
)
"""Any version-3 entry of a type pi_lsp knows; narrowed by ``entry["type"]``."""

SessionEntry = Annotated[Entry, Field(discriminator="type")]
"""Any version-3 entry, as the schema and the append validator see it."""


@OPEN
class UnknownEntry(_Entry):
    """An entry of a type pi_lsp does not know (a newer pi's, an extension's).

    Only the common fields are known; the line is kept and written back exactly as read (D1).
    Not part of :data:`SessionEntry`: pi_lsp never writes one, it only carries them.
    """

    type: str


AnyEntry = Entry | UnknownEntry
"""What a session record holds (:attr:`Record.value`): a known entry, or one kept as read.
The ``str`` type of :class:`UnknownEntry` stops narrowing by ``type``; :func:`known` and
:func:`entry_as` first tell the two apart by the record's indexed type."""

_TYPE_OF: dict[type[Any], str] = {
    MessageEntry: "message",
    ThinkingLevelChangeEntry: "thinking_level_change",
    ModelChangeEntry: "model_change",
    CompactionEntry: "compaction",
    BranchSummaryEntry: "branch_summary",
    CustomEntry: "custom",
    CustomMessageEntry: "custom_message",
    LabelEntry: "label",
    SessionInfoEntry: "session_info",
    ContextEditEntry: "context_edit",
    UsageEntry: "usage",
}
KNOWN_TYPES = frozenset(_TYPE_OF.values())
"""The ``type`` of every entry in :data:`Entry`."""

_E = TypeVar("_E", bound=Mapping[str, object])


def known(record: Record) -> Entry | None:
    """``record``'s entry as the known type its ``type`` names; None for an unknown type.

    The caller narrows the result by ``entry["type"]``. As everywhere on the read side the
    value is not validated (pi's interfaces over ``JSON.parse``): the type names the keys the
    line has when pi or pi_lsp wrote it, and readers of odd values stay defensive.
    """
    return cast(Entry, record.value) if record.type in KNOWN_TYPES else None


def entry_as(record: Record, kind: type[_E]) -> _E | None:
    """``record``'s entry when it is of type ``kind`` (a class of :data:`Entry`), else None.

    Decided by the record's indexed ``type``, so a record of another type is not parsed.
    """
    return cast(_E, record.value) if record.type == _TYPE_OF[kind] else None


def target_of(record: Record) -> str | None:
    """The entry a ``label`` or ``context_edit`` acts on (its ``targetId``), if a string."""
    entry = known(record)
    if entry is None or (entry["type"] != "label" and entry["type"] != "context_edit"):
        return None
    target = entry.get("targetId")
    return target if isinstance(target, str) else None


_ROLE_OF: dict[type[Any], str] = {
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolResultMessage: "toolResult",
    BashExecutionMessage: "bashExecution",
    CustomMessage: "custom",
    SystemMessage: "system",
}


def message_as(record: Record, role: type[_E]) -> _E | None:
    """The message of a ``message`` entry when it has ``role``'s role, else None.

    Decided by the indexed type and ``message.role`` (set only when the message is an object).
    """
    if record.role != _ROLE_OF[role] or record.type != "message":
        return None
    return cast(_E, cast(MessageEntry, record.value)["message"])


@OPEN
class LegacyMessageEntry(TypedDict):
    """Version-1 message line (no ids; order gives the chain)."""

    type: Literal["message"]
    timestamp: str
    message: StoredMessage


@OPEN
class LegacyThinkingLevelChangeEntry(TypedDict):
    """Version-1 thinking level change."""

    type: Literal["thinking_level_change"]
    timestamp: str
    thinkingLevel: str


@OPEN
class LegacyModelChangeEntry(TypedDict):
    """Version-1 model change."""

    type: Literal["model_change"]
    timestamp: str
    provider: str
    modelId: str


@OPEN
class LegacyCompactionEntry(TypedDict):
    """Version-1 compaction: the kept tail is addressed by line index (header = 0)."""

    type: Literal["compaction"]
    timestamp: str
    summary: str
    firstKeptEntryIndex: int
    tokensBefore: int


LegacyEntry = Annotated[
    LegacyMessageEntry
    | LegacyThinkingLevelChangeEntry
    | LegacyModelChangeEntry
    | LegacyCompactionEntry,
    Field(discriminator="type"),
]
"""Any version-1 entry line."""

SessionLine = SessionHeader | SessionEntry | LegacyEntry
"""One line of a session file of any version."""


@functools.cache
def session_line() -> TypeAdapter[SessionLine]:
    """Validates one line of any version (tests check what pi_lsp writes with it).

    Built on first use: compiling the validator for the whole union takes ~0.1 s, which every
    command that only imports the session package (``pi-lsp sessions …``) would otherwise pay.
    """
    return TypeAdapter(SessionLine)


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

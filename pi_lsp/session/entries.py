"""pi's session file lines: the header and every entry type, as TypedDicts over the plain JSON.

Spec §1.3–1.4, plus pi 1.6.0's ``context_edit`` and ``usage`` entries and ``system`` messages.
A loaded entry is the parsed JSON of its line (unknown fields survive, D1); these types name its
keys, and ``schemas/session-line.schema.json`` is generated from them. Legacy version-1 lines
(no ``id``/``parentId``) have their own types so that every line pi ever wrote validates.

Last, what the session layer hands out about its files: list metadata (:class:`SessionInfo`, a
model the lister builds), the tree and the context (TypedDicts over the plain JSON the CLI
prints). They fix the shapes the CLI prints (the corpus field names) and the daemon sends.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from pi_lsp.session.messages import OPEN, ContextMessage, StoredMessage, SystemMessage, UserBlock

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


SessionEntry = Annotated[
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
    | UsageEntry,
    Field(discriminator="type"),
]
"""Any version-3 entry."""


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

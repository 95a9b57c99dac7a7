"""pydantic models of the session file's lines: the header and the nine entry types (spec §1.3–1.4).

Field order is pi's write order, so a model dumped with ``exclude_unset=True`` has the key order
pi writes. Legacy version-1 lines (no ``id``/``parentId``) have their own models so that every line
pi ever wrote validates against ``schemas/session-line.schema.json``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from pi_lsp.session.messages import StoredMessage, UserBlock

CURRENT_VERSION = 3
"""Version pi v0.58.3 writes; older files are migrated on load (spec §1.7)."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class SessionHeader(_Open):
    """First line of every session file."""

    type: Literal["session"]
    version: int | None = None
    """3 for current files; absent in version-1 files."""
    id: str
    """Session id (a v4 UUID unless the creator chose one)."""
    timestamp: str
    """ISO time the session was created; also the file-name prefix."""
    cwd: str
    """Working directory the session belongs to."""
    parentSession: str | None = None
    """Absolute path of the file this one was branched or forked from."""


class _Entry(_Open):
    id: str
    """8 lowercase hex characters, unique within the file."""
    parentId: str | None
    """Id of the entry this one follows; null for a root."""
    timestamp: str
    """ISO time of the append (UTC, milliseconds, ``Z``)."""


class MessageEntry(_Entry):
    """A conversation message (user, assistant, tool result, bash execution, custom)."""

    type: Literal["message"]
    message: StoredMessage

    model_config = ConfigDict(extra="allow")


class ThinkingLevelChangeEntry(_Entry):
    """The thinking level changed from here on."""

    type: Literal["thinking_level_change"]
    thinkingLevel: str


class ModelChangeEntry(_Entry):
    """The model changed from here on."""

    type: Literal["model_change"]
    provider: str
    modelId: str


class CompactionDetails(_Open):
    """File lists pi carries from one compaction to the next."""

    readFiles: list[str]
    modifiedFiles: list[str]


class CompactionEntry(_Entry):
    """A checkpoint summary replacing the history before ``firstKeptEntryId``."""

    type: Literal["compaction"]
    summary: str
    firstKeptEntryId: str
    """First entry kept verbatim after the summary."""
    tokensBefore: int
    """Estimated context size when the compaction was made."""
    details: Any = None
    """``{readFiles, modifiedFiles}`` when pi made it; anything when an extension did."""
    fromHook: bool | None = None
    """False when pi generated the summary, true when an extension supplied it."""


class BranchSummaryEntry(_Entry):
    """What an abandoned branch learned, hung where the conversation resumed."""

    type: Literal["branch_summary"]
    fromId: str
    """Entry the branch was left at, or ``"root"``."""
    summary: str
    details: Any = None
    fromHook: bool | None = None


class CustomEntry(_Open):
    """Extension state; never part of the model context."""

    type: Literal["custom"]
    customType: str
    data: Any = None
    id: str
    parentId: str | None
    timestamp: str


class CustomMessageEntry(_Open):
    """An extension message that enters the context as a user message."""

    type: Literal["custom_message"]
    customType: str
    content: str | list[UserBlock]
    display: bool
    """Whether a UI shows it; the model always sees it."""
    details: Any = None
    id: str
    parentId: str | None
    timestamp: str


class LabelEntry(_Entry):
    """Sets (non-empty ``label``) or clears (absent or empty) the bookmark on ``targetId``."""

    type: Literal["label"]
    targetId: str
    label: str | None = None


class SessionInfoEntry(_Entry):
    """Display name of the session (latest non-empty one wins)."""

    type: Literal["session_info"]
    name: str | None = None


SessionEntry = Annotated[
    MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry,
    Field(discriminator="type"),
]
"""Any version-3 entry."""


class _LegacyEntry(_Open):
    timestamp: str


class LegacyMessageEntry(_LegacyEntry):
    """Version-1 message line (no ids; order gives the chain)."""

    type: Literal["message"]
    message: StoredMessage


class LegacyThinkingLevelChangeEntry(_LegacyEntry):
    """Version-1 thinking level change."""

    type: Literal["thinking_level_change"]
    thinkingLevel: str


class LegacyModelChangeEntry(_LegacyEntry):
    """Version-1 model change."""

    type: Literal["model_change"]
    provider: str
    modelId: str


class LegacyCompactionEntry(_LegacyEntry):
    """Version-1 compaction: the kept tail is addressed by line index (header = 0)."""

    type: Literal["compaction"]
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

SessionLine = SessionHeader | SessionEntry | LegacyEntry
"""One line of a session file of any version."""

SESSION_LINE: TypeAdapter[Any] = TypeAdapter(SessionLine)
SESSION_ENTRY: TypeAdapter[Any] = TypeAdapter(SessionEntry)

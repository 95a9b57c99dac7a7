"""Data shapes of project context: loaded files, warnings, and the ``context files`` report.

These are pydantic models so that a later step can generate JSON Schemas for the wire and CLI
output from them. They only describe data; loading lives in :mod:`pi_lsp.prompt.files`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ContextSource = Literal["global", "ancestor"]
"""Where a context file came from: the agent dir (``global``) or cwd and its ancestors."""


class ContextFile(BaseModel):
    """One loaded context file (``AGENTS.md``, ``CLAUDE.md``, ...), as it goes into the prompt."""

    model_config = ConfigDict(frozen=True)

    path: str
    """Absolute path, lexical (reached through symlinks as given, never resolved)."""
    source: ContextSource
    """``global`` for the agent dir's file, ``ancestor`` for cwd and the directories above it."""
    content: str = Field(repr=False)
    """The text, UTF-8 decoded, with a leading BOM removed; line endings are kept."""


class ContextWarning(BaseModel):
    """A problem met while loading context; the load goes on without the offending file."""

    model_config = ConfigDict(frozen=True)

    path: str
    """The file or directory the problem is about."""
    message: str
    """What went wrong and what was done about it."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ContextFileRef(BaseModel):
    """A loaded file as listed by ``pi-lsp context files --json`` (no content)."""

    path: str
    """Absolute path of the file."""
    source: ContextSource
    """``global`` or ``ancestor``."""


class ContextFilesReport(BaseModel):
    """Output of ``pi-lsp context files --json``: files in load order, then warnings."""

    files: list[ContextFileRef]
    """Loaded files, in the order they go into the system prompt."""
    warnings: list[str]
    """One line per problem, each starting with the path it is about."""

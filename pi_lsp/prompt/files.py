"""Load what a system prompt is made of: AGENTS.md-style context files, SYSTEM.md, APPEND_SYSTEM.md.

Context files (decision D3, spec §8.1, Appendix A): the global file of the agent dir first,
then one file per directory from the filesystem root down to cwd. Paths are lexical (``cwd`` is
made absolute, never resolved), as pi reports them. No file loads twice: identity is the file
itself (device and inode), so the agent dir inside the tree, cwd equal to the agent dir and
symlinked paths are all covered. In a nested linked worktree the main checkout's copy of the
worktree's own file is skipped.

``SYSTEM.md`` and ``APPEND_SYSTEM.md`` (spec §8.2), a custom base prompt and extra prompt text:
each is looked up in ``<cwd>/.pi/`` first, then in the agent dir; the first regular file wins,
even when it is empty. That is how a project switches a global file off: an empty project
``SYSTEM.md`` means "no custom prompt" and an empty ``APPEND_SYSTEM.md`` means "no append
text", whatever the agent dir holds. Only cwd's own ``.pi/`` counts, never an ancestor's.

Problems become warnings (a file that cannot be read: the next location is tried); a load always
completes. Pure apart from the injected file system. The shapes of what is loaded are pydantic
models, so the ``context files --json`` report has a generated JSON Schema.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pi_lsp.prompt.fs import (
    ContextFs,
    ContextWarning,
    LocalFs,
    candidate_files,
    decode_text,
    describe_os_error,
    regular_file_stat,
    shadowed_context_file,
)
from pi_lsp.session.paths import agent_dir as default_agent_dir

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


_FileIdentity = tuple[int, int] | str


@dataclass(frozen=True, slots=True)
class ContextLoad:
    """Context files in prompt order, and the warnings met while finding them."""

    files: tuple[ContextFile, ...]
    """Global file first (if any), then ancestors from the outermost to cwd."""
    warnings: tuple[ContextWarning, ...]
    """Each problem once, in the order it was met."""


StrPath = str | os.PathLike[str]
"""A directory as callers give it; made absolute, never resolved (paths stay lexical)."""


def resolve_dirs(cwd: StrPath, agent_dir: StrPath | None = None) -> tuple[str, str]:
    """Absolute, lexically normalised ``(cwd, agent_dir)``; the agent dir defaults as pi's does."""
    agent = default_agent_dir() if agent_dir is None else agent_dir
    return os.path.abspath(cwd), os.path.abspath(os.path.expanduser(agent))


def prepare_load(
    cwd: StrPath, agent_dir: StrPath | None, fs: ContextFs | None
) -> tuple[ContextFs, str, str]:
    """The file system a load uses (the real one unless given) and its ``(cwd, agent_dir)``."""
    return (LocalFs() if fs is None else fs, *resolve_dirs(cwd, agent_dir))


def load_context_files(
    cwd: StrPath, agent_dir: StrPath | None = None, *, fs: ContextFs | None = None
) -> ContextLoad:
    """Find and read the context files for ``cwd``; the agent dir defaults as pi's does."""
    fs, cwd_path, agent_path = prepare_load(cwd, agent_dir, fs)
    warnings: list[ContextWarning] = []
    seen: set[_FileIdentity] = set()
    loader = _DirectoryLoader(fs, seen, warnings)
    global_file = loader.load(agent_path, "global", shadowed=None)
    shadowed = shadowed_context_file(fs, cwd_path, warnings)
    shadowed_real = None if shadowed is None else os.path.realpath(shadowed)
    nearest_first = [
        found
        for directory in _cwd_and_ancestors(cwd_path)
        if (found := loader.load(directory, "ancestor", shadowed=shadowed_real)) is not None
    ]
    files = ([global_file] if global_file is not None else []) + nearest_first[::-1]
    return ContextLoad(files=tuple(files), warnings=tuple(dict.fromkeys(warnings)))


class _DirectoryLoader:
    """Picks and reads one directory's context file, sharing the de-duplication state."""

    def __init__(
        self, fs: ContextFs, seen: set[_FileIdentity], warnings: list[ContextWarning]
    ) -> None:
        self._fs = fs
        self._seen = seen
        self._warnings = warnings

    def load(
        self, directory: str, source: ContextSource, *, shadowed: str | None
    ) -> ContextFile | None:
        """The directory's file, or None if it has none, it is shadowed or already loaded.

        A shadowed or already loaded file does not fall through to the next candidate name:
        the directory simply contributes nothing (as in pi). A file that cannot be read does.
        """
        for path, found in candidate_files(self._fs, directory, self._warnings):
            if shadowed is not None and os.path.realpath(path) == shadowed:
                return None
            identity: _FileIdentity = (
                (found.st_dev, found.st_ino) if found.st_ino else os.path.realpath(path)
            )
            if identity in self._seen:
                return None
            try:
                data = self._fs.read_bytes(path)
            except OSError as exc:
                reason = describe_os_error(exc)
                message = f"cannot read: {reason}; trying the next candidate"
                self._warnings.append(ContextWarning(path=path, message=message))
                continue
            text, warning = decode_text(data, path)
            if warning is not None:
                self._warnings.append(warning)
            self._seen.add(identity)
            return ContextFile(path=path, source=source, content=text)
        return None


def _cwd_and_ancestors(cwd: str) -> list[str]:
    """``cwd``, its parent, ... up to the filesystem root (lexical)."""
    chain = [cwd]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    return chain


SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"
PROJECT_CONFIG_DIR = ".pi"


@dataclass(frozen=True, slots=True)
class PromptFile:
    """A prompt file that was found and read."""

    path: str
    """Where it was read from."""
    text: str
    """Its content (may be empty)."""


@dataclass(frozen=True, slots=True)
class SystemFiles:
    """The ``SYSTEM.md`` and ``APPEND_SYSTEM.md`` in effect for one cwd."""

    system: PromptFile | None
    """The winning ``SYSTEM.md``, or None when neither location has one."""
    append: PromptFile | None
    """The winning ``APPEND_SYSTEM.md``, or None when neither location has one."""
    warnings: tuple[ContextWarning, ...] = ()
    """Problems met while looking."""

    @property
    def custom_prompt(self) -> str | None:
        """Text that replaces the base prompt; None when absent or empty (pi treats "" as none)."""
        return self.system.text if self.system is not None and self.system.text else None

    @property
    def append_text(self) -> str | None:
        """Text appended after the guidelines; None when absent or empty."""
        return self.append.text if self.append is not None and self.append.text else None


def load_system_files(
    cwd: StrPath, agent_dir: StrPath | None = None, *, fs: ContextFs | None = None
) -> SystemFiles:
    """Find ``SYSTEM.md`` and ``APPEND_SYSTEM.md`` for ``cwd``: project ``.pi/`` first."""
    fs, cwd_path, agent_path = prepare_load(cwd, agent_dir, fs)
    warnings: list[ContextWarning] = []
    found = [
        _first_file(
            fs,
            [os.path.join(cwd_path, PROJECT_CONFIG_DIR, name), os.path.join(agent_path, name)],
            warnings,
        )
        for name in (SYSTEM_FILE, APPEND_SYSTEM_FILE)
    ]
    return SystemFiles(system=found[0], append=found[1], warnings=tuple(warnings))


def _first_file(
    fs: ContextFs, paths: list[str], warnings: list[ContextWarning]
) -> PromptFile | None:
    """The first path that is a readable regular file, read and decoded."""
    for path in paths:
        if regular_file_stat(fs, path, warnings) is None:
            continue
        try:
            data = fs.read_bytes(path)
        except OSError as exc:
            message = f"cannot read: {describe_os_error(exc)}; trying the next location"
            warnings.append(ContextWarning(path=path, message=message))
            continue
        text, warning = decode_text(data, path)
        if warning is not None:
            warnings.append(warning)
        return PromptFile(path=path, text=text)
    return None

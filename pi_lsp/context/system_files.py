"""``SYSTEM.md`` and ``APPEND_SYSTEM.md``: a custom base prompt and extra prompt text (spec §8.2).

Each is looked up in ``<cwd>/.pi/`` first, then in the agent dir; the first regular file wins,
even when it is empty. That is how a project switches a global file off: an empty project
``SYSTEM.md`` means "no custom prompt" and an empty ``APPEND_SYSTEM.md`` means "no append
text", whatever the agent dir holds. Only cwd's own ``.pi/`` counts, never an ancestor's. A file
that cannot be read gives a warning and the next location is tried.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pi_lsp.context.agents_md import resolve_dirs
from pi_lsp.context.candidates import decode_text, regular_file_stat
from pi_lsp.context.fs import ContextFs, LocalFs, describe_os_error
from pi_lsp.context.models import ContextWarning

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
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str] | None = None,
    *,
    fs: ContextFs | None = None,
) -> SystemFiles:
    """Find ``SYSTEM.md`` and ``APPEND_SYSTEM.md`` for ``cwd``: project ``.pi/`` first."""
    fs = LocalFs() if fs is None else fs
    cwd_path, agent_path = resolve_dirs(cwd, agent_dir)
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

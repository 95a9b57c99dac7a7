"""Everything the system prompt needs from disk for one cwd, loaded in one call.

Bundles the context files (:mod:`pi_lsp.context.agents_md`) and the ``SYSTEM.md`` /
``APPEND_SYSTEM.md`` lookup (:mod:`pi_lsp.context.system_files`) into one immutable value that
the cache stores and the prompt builder consumes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pi_lsp.context.agents_md import load_context_files, resolve_dirs
from pi_lsp.context.fs import ContextFs, LocalFs
from pi_lsp.context.models import ContextFile, ContextWarning
from pi_lsp.context.system_files import SystemFiles, load_system_files


@dataclass(frozen=True, slots=True)
class ProjectContext:
    """The project context of one cwd at one moment."""

    cwd: str
    """Absolute working directory (lexical)."""
    agent_dir: str
    """Absolute agent dir the global files came from."""
    files: tuple[ContextFile, ...]
    """Context files in prompt order."""
    system: SystemFiles
    """The ``SYSTEM.md`` / ``APPEND_SYSTEM.md`` in effect."""
    warnings: tuple[ContextWarning, ...]
    """Every problem met while loading, context files first."""


def load_project_context(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str] | None = None,
    *,
    fs: ContextFs | None = None,
) -> ProjectContext:
    """Load context files and prompt files for ``cwd``; never raises for file problems."""
    fs = LocalFs() if fs is None else fs
    cwd_path, agent_path = resolve_dirs(cwd, agent_dir)
    loaded = load_context_files(cwd_path, agent_path, fs=fs)
    system = load_system_files(cwd_path, agent_path, fs=fs)
    return ProjectContext(
        cwd=cwd_path,
        agent_dir=agent_path,
        files=loaded.files,
        system=system,
        warnings=loaded.warnings + system.warnings,
    )

"""Everything the system prompt needs from disk for one cwd (:class:`PromptSources`), cached.

One call bundles the context files and the ``SYSTEM.md`` / ``APPEND_SYSTEM.md`` lookup
(:mod:`pi_lsp.prompt.files`) into one immutable value that the cache stores and the prompt
builder consumes.

The per-cwd cache is revalidated with ``stat`` before each turn. A load records every path it
stat-ed and what it saw (type, inode, device, size, mtime and ctime in nanoseconds, or the
error). :meth:`PromptSourcesCache.get` re-stats exactly those paths: if nothing changed it
returns the previous value without reading a byte; otherwise it loads again, and only files
whose signature changed are read from disk; unchanged ones come from memory. So an edited
``AGENTS.md`` is seen on the next turn, and a new one appearing in any directory the walk looked
at is noticed because its missing-file probe now succeeds.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pi_lsp.prompt.files import (
    ContextFile,
    StrPath,
    SystemFiles,
    load_context_files,
    load_system_files,
    prepare_load,
    resolve_dirs,
)
from pi_lsp.prompt.fs import ContextFs, ContextWarning, LocalFs


@dataclass(frozen=True, slots=True)
class PromptSources:
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


def load_prompt_sources(
    cwd: StrPath, agent_dir: StrPath | None = None, *, fs: ContextFs | None = None
) -> PromptSources:
    """Load context files and prompt files for ``cwd``; never raises for file problems."""
    fs, cwd_path, agent_path = prepare_load(cwd, agent_dir, fs)
    loaded = load_context_files(cwd_path, agent_path, fs=fs)
    system = load_system_files(cwd_path, agent_path, fs=fs)
    return PromptSources(
        cwd=cwd_path,
        agent_dir=agent_path,
        files=loaded.files,
        system=system,
        warnings=loaded.warnings + system.warnings,
    )


_StatKind = Literal["stat", "lstat"]
_Probe = tuple[_StatKind, str]
_Signature = tuple[int, ...]
"""``(mode, inode, device, size, mtime_ns, ctime_ns)``, or ``(-errno,)`` when the stat failed."""


@dataclass(frozen=True, slots=True)
class _Content:
    signature: _Signature
    data: bytes


@dataclass(frozen=True, slots=True)
class _Entry:
    context: PromptSources
    probes: Mapping[_Probe, _Signature]
    contents: Mapping[str, _Content]


class PromptSourcesCache:
    """Project context per ``(cwd, agent dir)``, cheap to ask for again before every turn.

    Safe to share between threads: one lock guards the table (loads are short).
    """

    def __init__(self, *, fs: ContextFs | None = None) -> None:
        self._fs = LocalFs() if fs is None else fs
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()

    def get(self, cwd: StrPath, agent_dir: StrPath | None = None) -> PromptSources:
        """The current project context of ``cwd``, reusing whatever did not change on disk."""
        key = resolve_dirs(cwd, agent_dir)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and self._unchanged(entry):
                return entry.context
            recorder = _RecordingFs(self._fs, {} if entry is None else entry.contents)
            context = load_prompt_sources(key[0], key[1], fs=recorder)
            self._entries[key] = _Entry(context, recorder.probes, recorder.contents)
            return context

    def invalidate(self, cwd: StrPath | None = None) -> None:
        """Forget one cwd (all agent dirs), or everything when ``cwd`` is None."""
        with self._lock:
            if cwd is None:
                self._entries.clear()
                return
            target = os.path.abspath(cwd)
            for key in [key for key in self._entries if key[0] == target]:
                del self._entries[key]

    def _unchanged(self, entry: _Entry) -> bool:
        return all(
            _signature(self._fs, kind, path) == expected
            for (kind, path), expected in entry.probes.items()
        )


class _RecordingFs:
    """A :class:`ContextFs` that records each stat and serves unchanged files from memory."""

    def __init__(self, base: ContextFs, previous: Mapping[str, _Content]) -> None:
        self._base = base
        self._previous = previous
        self.probes: dict[_Probe, _Signature] = {}
        self.contents: dict[str, _Content] = {}

    def stat(self, path: str) -> os.stat_result:
        return self._record("stat", path)

    def lstat(self, path: str) -> os.stat_result:
        return self._record("lstat", path)

    def read_bytes(self, path: str) -> bytes:
        signature = _of(self._record("stat", path))
        cached = self.contents.get(path) or self._previous.get(path)
        if cached is not None and cached.signature == signature:
            data = cached.data
        else:
            data = self._base.read_bytes(path)
        self.contents[path] = _Content(signature, data)
        return data

    def _record(self, kind: _StatKind, path: str) -> os.stat_result:
        try:
            found = self._base.stat(path) if kind == "stat" else self._base.lstat(path)
        except OSError as exc:
            self.probes[(kind, path)] = _failure(exc)
            raise
        self.probes[(kind, path)] = _of(found)
        return found


def _signature(fs: ContextFs, kind: _StatKind, path: str) -> _Signature:
    try:
        return _of(fs.stat(path) if kind == "stat" else fs.lstat(path))
    except OSError as exc:
        return _failure(exc)


def _of(found: os.stat_result) -> _Signature:
    return (
        found.st_mode,
        found.st_ino,
        found.st_dev,
        found.st_size,
        found.st_mtime_ns,
        found.st_ctime_ns,
    )


def _failure(exc: OSError) -> _Signature:
    return (-(exc.errno or 1),)

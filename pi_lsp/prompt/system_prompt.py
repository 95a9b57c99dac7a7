"""The system prompt (spec §8.3, D3): what it is made of for one cwd, cached, and its assembly.

**Sources.** One call bundles the context files and the ``SYSTEM.md`` / ``APPEND_SYSTEM.md``
lookup (:mod:`pi_lsp.prompt.files`) into one immutable :class:`PromptSources` that the cache
stores and the builder consumes. The per-cwd :class:`PromptSourcesCache` is revalidated with
``stat`` before each turn. A load records every path it stat-ed and what it saw (type, inode,
device, size, mtime and ctime in nanoseconds, or the error). :meth:`PromptSourcesCache.get`
re-stats exactly those paths: if nothing changed it returns the previous value without reading a
byte; otherwise it loads again, and only files whose signature changed are read from disk;
unchanged ones come from memory. So an edited ``AGENTS.md`` is seen on the next turn, and a new
one appearing in any directory the walk looked at is noticed because its missing-file probe now
succeeds.

**Assembly.** Section order, joined by blank lines: identity; the active tools with one-line
descriptions; guidelines that depend on which tools are active; the ``APPEND_SYSTEM.md`` text; a
``<project_context>`` block with one ``<project_instructions path="…">`` per context file in
load order; and last the current date and working directory. A non-empty ``SYSTEM.md`` replaces
the first three sections. The wording is pi_lsp's own; only the structure follows pi. Pure: the
caller supplies everything, including today's date in tests. Tools come in as ``(name,
one_line_description)`` pairs so that the builder never depends on the tools package; that
package can import :data:`BUILTIN_TOOL_SUMMARIES` to describe pi's seven built-in tools the
same way.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal, NamedTuple

from pi_lsp.literals import DEFAULT_ACTIVE_TOOLS
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


# ----------------------------------------------------------------- the prompt


class ToolSummary(NamedTuple):
    """A tool as the system prompt lists it."""

    name: str
    """The tool name the model calls (pi's names: ``read``, ``bash``, ...)."""
    description: str
    """One line saying what the tool does."""


BUILTIN_TOOL_SUMMARIES: dict[str, str] = {
    "read": "Read a file's contents (text, or an image for pictures)",
    "bash": "Run a shell command in the working directory and see its output",
    "edit": "Replace one exact piece of text in a file with new text",
    "write": "Create a file, or overwrite one completely",
    "grep": "Search file contents for a pattern (honours .gitignore)",
    "find": "Find files by glob pattern (honours .gitignore)",
    "ls": "List the entries of a directory",
}
"""pi's built-in tools (spec §9) and how the prompt describes each."""


def builtin_tool_summaries(names: Iterable[str] = DEFAULT_ACTIVE_TOOLS) -> tuple[ToolSummary, ...]:
    """Summaries of the named built-in tools, in the given order.

    Raises:
        KeyError: a name that is not one of pi's built-in tools.
    """
    return tuple(ToolSummary(name, BUILTIN_TOOL_SUMMARIES[name]) for name in names)


IDENTITY = (
    "You are an expert coding assistant working inside pi_lsp, a coding agent built into the "
    "user's editor. You help by reading files, running commands, editing code and writing "
    "new files."
)
OTHER_TOOLS_NOTE = "Other tools may be available too, depending on the project."
_SEARCH_TOOLS = ("grep", "find", "ls")


def build_system_prompt(
    context: PromptSources,
    *,
    tools: Sequence[tuple[str, str]] = builtin_tool_summaries(),
    extra_guidelines: Sequence[str] = (),
    today: date | None = None,
) -> str:
    """The system prompt for a loaded project context and the active tools."""
    return assemble_system_prompt(
        cwd=context.cwd,
        context_files=context.files,
        tools=tools,
        custom_prompt=context.system.custom_prompt,
        append_text=context.system.append_text,
        extra_guidelines=extra_guidelines,
        today=today,
    )


def assemble_system_prompt(
    *,
    cwd: str,
    context_files: Sequence[ContextFile],
    tools: Sequence[tuple[str, str]] = builtin_tool_summaries(),
    custom_prompt: str | None = None,
    append_text: str | None = None,
    extra_guidelines: Sequence[str] = (),
    today: date | None = None,
) -> str:
    """The system prompt text; ``custom_prompt`` (if non-empty) replaces the base prompt.

    Args:
        cwd: The working directory named at the end of the prompt.
        context_files: Context files in load order.
        tools: ``(name, one_line_description)`` of each active tool, in display order.
        custom_prompt: ``SYSTEM.md`` text; empty or None keeps the base prompt.
        append_text: ``APPEND_SYSTEM.md`` text; empty or None adds nothing.
        extra_guidelines: Further guideline bullets (for example from tools), de-duplicated.
        today: The date to state; defaults to the local date.
    """
    if custom_prompt:
        sections = [custom_prompt.rstrip()]
    else:
        names = [name for name, _ in tools]
        sections = [
            IDENTITY,
            render_tools(tools),
            OTHER_TOOLS_NOTE,
            _bullets("Guidelines:", tool_guidelines(names, extra_guidelines)),
        ]
    if append_text and append_text.strip():
        sections.append(append_text.rstrip())
    if context_files:
        sections.append(render_project_context(context_files))
    day = (today or date.today()).isoformat()
    where = cwd.replace("\\", "/")
    sections.append(f"Current date: {day}\nCurrent working directory: {where}")
    return "\n\n".join(sections)


def render_tools(tools: Sequence[tuple[str, str]]) -> str:
    """The ``Available tools:`` list, or ``(none)`` when no tool is active."""
    lines = [f"- {name}: {description}" for name, description in tools] or ["(none)"]
    return "\n".join(["Available tools:", *lines])


def tool_guidelines(names: Collection[str], extra: Sequence[str] = ()) -> list[str]:
    """Guideline bullets for the active tool names, then ``extra``, then the standing ones."""
    search = [name for name in _SEARCH_TOOLS if name in names]
    rules: list[str] = []
    if "bash" in names:
        rules.append(
            f"Prefer the {_join(search)} tool{'s' if len(search) > 1 else ''} to bash when "
            "exploring files."
            if search
            else "Use bash for file operations such as ls, rg and find."
        )
    if "read" in names and "edit" in names:
        rules.append("Read a file with read before you edit it; do not use cat or sed for that.")
    if "edit" in names:
        rules.append("Use edit for precise changes: the old text must match the file exactly.")
    if "write" in names:
        rules.append("Use write only for new files or complete rewrites.")
    if "edit" in names or "write" in names:
        rules.append(
            "Report what you did in plain text; do not use cat or bash to display your changes."
        )
    rules.extend(extra)
    rules.extend(["Be concise.", "Show file paths clearly when you work with files."])
    return list(dict.fromkeys(rules))


def render_project_context(files: Sequence[ContextFile]) -> str:
    """The ``<project_context>`` block: one ``<project_instructions>`` element per file."""
    parts = ["<project_context>\nProject-specific instructions and guidelines:"]
    for file in files:
        body = (
            file.content if file.content.endswith("\n") or not file.content else file.content + "\n"
        )
        parts.append(
            f'<project_instructions path="{_attribute(file.path)}">\n{body}</project_instructions>'
        )
    return "\n\n".join(parts) + "\n</project_context>"


def _bullets(title: str, items: Sequence[str]) -> str:
    return "\n".join([title, *(f"- {item}" for item in items)])


def _join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _attribute(value: str) -> str:
    """``value`` escaped for a double-quoted XML attribute."""
    return (
        value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )

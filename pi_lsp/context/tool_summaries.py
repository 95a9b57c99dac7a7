"""One-line tool descriptions for the system prompt, as plain data.

The prompt builder takes the active tools as ``(name, one_line_description)`` pairs so that it
never depends on the tools package; that package can import :data:`BUILTIN_TOOL_SUMMARIES` to
describe pi's seven built-in tools the same way. The wording is pi_lsp's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


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

DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")
"""The tools active unless configured otherwise, as in pi."""


def builtin_tool_summaries(names: Iterable[str] = DEFAULT_ACTIVE_TOOLS) -> tuple[ToolSummary, ...]:
    """Summaries of the named built-in tools, in the given order.

    Raises:
        KeyError: a name that is not one of pi's built-in tools.
    """
    return tuple(ToolSummary(name, BUILTIN_TOOL_SUMMARIES[name]) for name in names)

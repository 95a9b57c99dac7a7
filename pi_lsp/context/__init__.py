"""Project context: AGENTS.md-style context files, SYSTEM.md / APPEND_SYSTEM.md, the system prompt.

Plain Python; never imports pygls, lsprotocol or litellm (see tests/unit/test_architecture.py).
Typical use before each turn::

    context = cache.get(cwd)  # cache = ProjectContextCache(), one per daemon
    prompt = build_system_prompt(context, tools=active_tool_summaries)
"""

from pi_lsp.context.agents_md import ContextLoad, load_context_files
from pi_lsp.context.cache import ProjectContextCache
from pi_lsp.context.models import ContextFile, ContextFileRef, ContextFilesReport, ContextWarning
from pi_lsp.context.project import ProjectContext, load_project_context
from pi_lsp.context.system_files import SystemFiles, load_system_files
from pi_lsp.context.system_prompt import assemble_system_prompt, build_system_prompt
from pi_lsp.context.tool_summaries import (
    BUILTIN_TOOL_SUMMARIES,
    DEFAULT_ACTIVE_TOOLS,
    ToolSummary,
    builtin_tool_summaries,
)

__all__ = [
    "BUILTIN_TOOL_SUMMARIES",
    "DEFAULT_ACTIVE_TOOLS",
    "ContextFile",
    "ContextFileRef",
    "ContextFilesReport",
    "ContextLoad",
    "ContextWarning",
    "ProjectContext",
    "ProjectContextCache",
    "SystemFiles",
    "ToolSummary",
    "assemble_system_prompt",
    "build_system_prompt",
    "builtin_tool_summaries",
    "load_context_files",
    "load_project_context",
    "load_system_files",
]

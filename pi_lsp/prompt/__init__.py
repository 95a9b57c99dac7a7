"""The system prompt and its sources: AGENTS.md-style context files, SYSTEM.md / APPEND_SYSTEM.md.

Named ``prompt`` so that "context" means one thing, the model context of a session
(:mod:`pi_lsp.session.context`); "context files" stays pi's name for AGENTS.md and the like.
Plain Python; never imports pygls, lsprotocol or litellm (see tests/unit/test_architecture.py).
Typical use before each turn::

    sources = cache.get(cwd)  # cache = PromptSourcesCache(), one per daemon
    prompt = build_system_prompt(sources, tools=active_tool_summaries)
"""

from pi_lsp.prompt.files import (
    ContextFile,
    ContextFileRef,
    ContextFilesReport,
    ContextLoad,
    SystemFiles,
    load_context_files,
    load_system_files,
)
from pi_lsp.prompt.fs import ContextWarning
from pi_lsp.prompt.system_prompt import (
    BUILTIN_TOOL_SUMMARIES,
    PromptSources,
    PromptSourcesCache,
    ToolSummary,
    assemble_system_prompt,
    build_system_prompt,
    builtin_tool_summaries,
    load_prompt_sources,
)

__all__ = [
    "BUILTIN_TOOL_SUMMARIES",
    "ContextFile",
    "ContextFileRef",
    "ContextFilesReport",
    "ContextLoad",
    "ContextWarning",
    "PromptSources",
    "PromptSourcesCache",
    "SystemFiles",
    "ToolSummary",
    "assemble_system_prompt",
    "build_system_prompt",
    "builtin_tool_summaries",
    "load_context_files",
    "load_prompt_sources",
    "load_system_files",
]

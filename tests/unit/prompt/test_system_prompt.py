"""System prompt assembly (spec §8.3 order, D3 ``<project_context>`` block)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from pi_lsp.prompt import (
    BUILTIN_TOOL_SUMMARIES,
    ContextFile,
    ToolSummary,
    assemble_system_prompt,
    build_system_prompt,
    builtin_tool_summaries,
    load_prompt_sources,
)
from pi_lsp.prompt.system_prompt import IDENTITY, tool_guidelines

DAY = date(2025, 9, 15)
FILES = (
    ContextFile(path="/home/u/.pi/agent/AGENTS.md", source="global", content="global rules\n"),
    ContextFile(path="/work/AGENTS.md", source="ancestor", content="work rules"),
    ContextFile(path="/work/proj/CLAUDE.md", source="ancestor", content=""),
)


def test_sections_in_order_with_date_and_cwd_last() -> None:
    prompt = assemble_system_prompt(
        cwd="/work/proj", context_files=FILES, append_text="APPENDED\n", today=DAY
    )
    order = [
        prompt.index(IDENTITY),
        prompt.index("Available tools:\n- read: "),
        prompt.index("Guidelines:\n"),
        prompt.index("APPENDED"),
        prompt.index("<project_context>"),
        prompt.index("</project_context>"),
    ]
    assert order == sorted(order)
    assert prompt.endswith("\n\nCurrent date: 2025-09-15\nCurrent working directory: /work/proj")


def test_each_context_file_appears_once_in_load_order_with_its_path() -> None:
    prompt = assemble_system_prompt(cwd="/work/proj", context_files=FILES, today=DAY)
    tags = re.findall(r'<project_instructions path="([^"]*)">', prompt)
    assert tags == [f.path for f in FILES]
    assert prompt.count("global rules") == 1
    block = prompt[prompt.index("<project_context>") :]
    assert block.startswith(
        "<project_context>\nProject-specific instructions and guidelines:\n\n"
        '<project_instructions path="/home/u/.pi/agent/AGENTS.md">\nglobal rules\n'
        "</project_instructions>\n\n"
        '<project_instructions path="/work/AGENTS.md">\nwork rules\n</project_instructions>\n\n'
        '<project_instructions path="/work/proj/CLAUDE.md">\n</project_instructions>\n'
        "</project_context>\n\n"
    )


def test_no_context_files_means_no_block() -> None:
    prompt = assemble_system_prompt(cwd="/w", context_files=(), today=DAY)
    assert "project_context" not in prompt


def test_custom_prompt_replaces_the_base_but_keeps_the_rest() -> None:
    prompt = assemble_system_prompt(
        cwd="/w",
        context_files=FILES[1:2],
        custom_prompt="You are a custom assistant.\n",
        append_text="extra",
        today=DAY,
    )
    assert prompt.startswith("You are a custom assistant.\n\nextra\n\n<project_context>")
    assert IDENTITY not in prompt
    assert "Available tools" not in prompt
    assert prompt.endswith("Current working directory: /w")


def test_empty_custom_prompt_keeps_the_base() -> None:
    prompt = assemble_system_prompt(cwd="/w", context_files=(), custom_prompt="", today=DAY)
    assert prompt.startswith(IDENTITY)


def test_tools_are_plain_pairs_and_none_is_said() -> None:
    prompt = assemble_system_prompt(
        cwd="/w", context_files=(), tools=[("lint", "Run the linter")], today=DAY
    )
    assert "Available tools:\n- lint: Run the linter\n" in prompt
    empty = assemble_system_prompt(cwd="/w", context_files=(), tools=(), today=DAY)
    assert "Available tools:\n(none)\n" in empty


def test_builtin_summaries_cover_pi_tools() -> None:
    assert list(BUILTIN_TOOL_SUMMARIES) == ["read", "bash", "edit", "write", "grep", "find", "ls"]
    assert builtin_tool_summaries(["ls"]) == (ToolSummary("ls", BUILTIN_TOOL_SUMMARIES["ls"]),)
    assert [t.name for t in builtin_tool_summaries()] == ["read", "bash", "edit", "write"]


def test_guidelines_follow_the_active_tools() -> None:
    bash_only = tool_guidelines(["bash"])
    assert bash_only[0] == "Use bash for file operations such as ls, rg and find."
    with_search = tool_guidelines(["bash", "grep", "ls"])
    assert with_search[0] == "Prefer the grep and ls tools to bash when exploring files."
    read_only = tool_guidelines(["read"])
    assert read_only == ["Be concise.", "Show file paths clearly when you work with files."]
    full = tool_guidelines(["read", "edit", "write"], extra=["Run tests.", "Be concise."])
    assert full.count("Be concise.") == 1
    assert full.index("Run tests.") < full.index("Be concise.")
    assert any("read before you edit" in rule for rule in full)


def test_path_attribute_is_escaped_and_windows_cwd_uses_slashes() -> None:
    odd = ContextFile(path='/w/a"b&<c>/AGENTS.md', source="ancestor", content="x\n")
    prompt = assemble_system_prompt(cwd="C:\\Users\\me", context_files=[odd], today=DAY)
    assert '<project_instructions path="/w/a&quot;b&amp;&lt;c&gt;/AGENTS.md">' in prompt
    assert prompt.endswith("Current working directory: C:/Users/me")


def test_build_from_a_loaded_project(root: Path, write_tree) -> None:
    write_tree(
        {
            "agent/AGENTS.md": "global",
            "p/AGENTS.md": "project",
            "p/.pi/SYSTEM.md": "Custom base.",
            "agent/APPEND_SYSTEM.md": "Global append.",
        }
    )
    context = load_prompt_sources(root / "p", root / "agent")
    prompt = build_system_prompt(context, today=DAY)
    assert prompt.startswith("Custom base.\n\nGlobal append.\n\n<project_context>")
    tags = re.findall(r'<project_instructions path="([^"]*)">', prompt)
    assert tags == [str(root / "agent/AGENTS.md"), str(root / "p/AGENTS.md")]
    assert prompt.endswith(f"Current working directory: {root / 'p'}")

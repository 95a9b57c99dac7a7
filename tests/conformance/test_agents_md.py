"""The AGENTS.md layouts of the pi v0.58.3 corpus, materialised and loaded by pi_lsp.

Each ``agents-md/<name>.manifest.json`` is built in a temporary directory (files, directories,
relative symlinks, ``<root>`` substituted where marked) and loaded. The context files (paths
and contents), ``SYSTEM.md`` and ``APPEND_SYSTEM.md`` must equal what pi recorded, except where
decision D3 makes pi_lsp follow pi v0.84.1 instead: see ``D3_TARGETS``. The rendered prompt is
deliberately not pi's text (pi_lsp uses a ``<project_context>`` block), so only its structure
is checked. The corpus is read in place; set ``PI_LSP_CONFORMANCE_DIR`` to point elsewhere.
"""

from __future__ import annotations

import json
import os
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.prompt import build_system_prompt, load_prompt_sources
from pi_lsp.prompt.system_prompt import IDENTITY

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(
    os.environ.get("PI_LSP_CONFORMANCE_DIR")
    or PROJECT_ROOT.parent / "shared" / "conformance" / "pi-v0.58.3"
)
LAYOUTS = sorted(
    p.name.removesuffix(".manifest.json") for p in (CORPUS / "agents-md").glob("*.manifest.json")
)

# Layouts whose recorded result is v0.58.3's and not pi_lsp's target (decision D3, pi v0.84.1):
# the layout-relative paths pi_lsp loads instead, in order.
D3_TARGETS: dict[str, list[str]] = {
    # v0.58.3 has no AGENTS.override.md; v0.84.1 tries it first in every directory, the agent
    # dir included. CLAUDE.override.md is no candidate in either version.
    "override-beside-agents": [
        "agent/AGENTS.override.md",
        "repo/AGENTS.override.md",
        "repo/pkg/AGENTS.override.md",
        "repo/pkg/inner/CLAUDE.md",
    ],
    # v0.58.3 knows only AGENTS.md and CLAUDE.md; v0.84.1 also takes AGENTS.MD and CLAUDE.MD
    # (after the lower-case-extension name of the same stem). Other spellings stay ignored.
    "case-variants": [
        "agent/AGENTS.MD",
        "a/AGENTS.MD",
        "a/b/c/CLAUDE.MD",
        "a/b/c/d/AGENTS.md",
    ],
    # v0.58.3 keeps a UTF-8 BOM as U+FEFF; v0.84.1 strips it (same files, content differs).
    "bom-crlf-unicode": ["agent/AGENTS.md", "proj/AGENTS.md"],
    # v0.58.3 is not git-aware and loads the main checkout's AGENTS.md too; v0.84.1 skips it
    # because the nested worktree's root has its own AGENTS.md (spec Appendix A).
    "git-worktree-nested": [
        "agent/AGENTS.md",
        "repo/.worktrees/feature/AGENTS.md",
        "repo/.worktrees/feature/src/AGENTS.md",
    ],
}
# v0.58.3 warns when it tries to read a directory named AGENTS.md (EISDIR); v0.84.1 only
# considers regular files, so pi_lsp passes the directory over silently (D3: "first regular file").
NO_WARNING_IN_D3 = {"agents-md-is-directory"}


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def materialise(manifest: dict[str, Any], root: Path) -> None:
    """Build a manifest's layout under ``root`` as the corpus README describes."""
    for directory in manifest["dirs"]:
        (root / directory).mkdir(parents=True, exist_ok=True)
    for file in manifest["files"]:
        target = root / file["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        content = file["content"]
        if file.get("rootPlaceholder"):
            content = content.replace("<root>", str(root))
        target.write_bytes(content.encode("utf-8"))
    for link in manifest["symlinks"]:
        path = root / link["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(link["target"])
    for key in ("cwd", "agentDir"):
        (root / manifest[key]).mkdir(parents=True, exist_ok=True)


def expected_files(
    name: str, manifest: dict[str, Any], recorded: dict[str, Any]
) -> list[dict[str, str]]:
    """``[{path, content}]`` pi_lsp must load: the recording, or the D3 target for this layout."""
    if name not in D3_TARGETS:
        return recorded["agentsFiles"]
    contents = {file["path"]: file["content"] for file in manifest["files"]}
    return [
        {"path": path, "content": contents[path].removeprefix("\ufeff")}
        for path in D3_TARGETS[name]
    ]


@pytest.fixture
def layout_root(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "root"
    root.mkdir()
    stray = [p for d in root.parents for p in d.glob("*") if p.name in {"AGENTS.md", "CLAUDE.md"}]
    assert stray == [], "the layout must not have context files above it"
    return root


def test_the_corpus_is_there() -> None:
    assert len(LAYOUTS) == 20, f"expected the 20 AGENTS.md layouts in {CORPUS}"
    assert set(D3_TARGETS) | NO_WARNING_IN_D3 <= set(LAYOUTS)


@pytest.mark.parametrize("name", LAYOUTS)
def test_layout(name: str, layout_root: Path) -> None:
    manifest = read_json(CORPUS / "agents-md" / f"{name}.manifest.json")
    recorded = read_json(CORPUS / "agents-md" / f"{name}.expected.json")
    if manifest.get("requiresCaseSensitiveFs"):
        probe = layout_root / "case-probe"
        probe.write_text("")
        assert not (layout_root / "CASE-PROBE").exists(), "this layout needs a case-sensitive fs"
        probe.unlink()
    materialise(manifest, layout_root)
    cwd, agent_dir = layout_root / manifest["cwd"], layout_root / manifest["agentDir"]

    context = load_prompt_sources(cwd, agent_dir)

    expected = expected_files(name, manifest, recorded)
    loaded = [
        {"path": os.path.relpath(f.path, layout_root), "content": f.content} for f in context.files
    ]
    assert loaded == expected
    global_expected = (
        bool(expected) and os.path.dirname(expected[0]["path"]) == manifest["agentDir"]
    )
    assert [f.source for f in context.files] == (
        ["global"] * global_expected + ["ancestor"] * (len(expected) - global_expected)
    )
    system = context.system
    assert (system.system.text if system.system else None) == recorded["systemPrompt"]
    assert ([system.append_text] if system.append_text else []) == recorded["appendSystemPrompt"]
    if name in NO_WARNING_IN_D3:
        assert recorded["warnings"] != []
        assert context.warnings == ()
    else:
        assert [str(w) for w in context.warnings] == recorded["warnings"] == []

    check_prompt_structure(build_system_prompt(context, today=date(2025, 9, 15)), context, recorded)


def check_prompt_structure(prompt: str, context: Any, recorded: dict[str, Any]) -> None:
    """Our rendering: same pieces and order as pi's, in pi_lsp's own format."""
    tags = re.findall(r'<project_instructions path="([^"]*)">', prompt)
    assert tags == [f.path for f in context.files]
    for file in context.files:
        assert prompt.count(f'path="{file.path}">\n{file.content}') == 1
    assert prompt.endswith(f"Current date: 2025-09-15\nCurrent working directory: {context.cwd}")
    custom = recorded["systemPrompt"]
    assert prompt.startswith(custom.rstrip() if custom else IDENTITY)
    for text in recorded["appendSystemPrompt"]:
        assert prompt.count(text.rstrip()) == 1

"""The per-cwd cache: stat-revalidated, re-reading only what changed."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from pi_lsp.prompt import PromptSourcesCache
from pi_lsp.prompt.fs import LocalFs


class CountingFs(LocalFs):
    """The real file system, counting reads per path."""

    def __init__(self) -> None:
        self.reads: Counter[str] = Counter()

    def read_bytes(self, path: str) -> bytes:
        self.reads[path] += 1
        return super().read_bytes(path)


def bump(path: Path, text: str) -> None:
    """Rewrite ``path`` and move its mtime on, so even a same-size edit is visible to stat."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def test_unchanged_disk_returns_the_same_value_without_reading(root: Path, write_tree) -> None:
    write_tree({"agent/AGENTS.md": "g", "p/AGENTS.md": "p", "p/.pi/SYSTEM.md": "custom"})
    fs = CountingFs()
    cache = PromptSourcesCache(fs=fs)
    first = cache.get(root / "p", root / "agent")
    reads_after_first = sum(fs.reads.values())
    assert reads_after_first == 3
    second = cache.get(root / "p", root / "agent")
    assert second is first
    assert sum(fs.reads.values()) == reads_after_first


def test_an_edited_file_is_seen_and_only_it_is_read_again(root: Path, write_tree) -> None:
    write_tree({"agent/AGENTS.md": "global", "AGENTS.md": "top", "p/AGENTS.md": "before"})
    fs = CountingFs()
    cache = PromptSourcesCache(fs=fs)
    cache.get(root / "p", root / "agent")
    bump(root / "p/AGENTS.md", "after!")
    context = cache.get(root / "p", root / "agent")
    assert [f.content for f in context.files] == ["global", "top", "after!"]
    assert fs.reads == Counter(
        {str(root / "agent/AGENTS.md"): 1, str(root / "AGENTS.md"): 1, str(root / "p/AGENTS.md"): 2}
    )


def test_same_size_edit_is_seen(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "aaaa"})
    cache = PromptSourcesCache()
    cache.get(root / "p", root / "agent")
    bump(root / "p/AGENTS.md", "bbbb")
    assert [f.content for f in cache.get(root / "p", root / "agent").files] == ["bbbb"]


def test_a_new_file_anywhere_on_the_walk_is_seen(root: Path, write_tree) -> None:
    write_tree({"a/b/AGENTS.md": "b"})
    cache = PromptSourcesCache()
    assert len(cache.get(root / "a/b", root / "agent").files) == 1
    (root / "a/CLAUDE.md").write_text("new in a parent")
    (root / "a/b/AGENTS.override.md").write_text("new override")
    context = cache.get(root / "a/b", root / "agent")
    assert [f.content for f in context.files] == ["new in a parent", "new override"]


def test_a_deleted_file_disappears_and_a_new_global_file_appears(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "p", "agent/": ""})
    cache = PromptSourcesCache()
    cache.get(root / "p", root / "agent")
    (root / "p/AGENTS.md").unlink()
    (root / "agent/AGENTS.md").write_text("global")
    context = cache.get(root / "p", root / "agent")
    assert [(f.source, f.content) for f in context.files] == [("global", "global")]


def test_system_files_are_revalidated_too(root: Path, write_tree) -> None:
    write_tree({"agent/APPEND_SYSTEM.md": "global append", "p/": ""})
    cache = PromptSourcesCache()
    assert cache.get(root / "p", root / "agent").system.append_text == "global append"
    write_tree({"p/.pi/APPEND_SYSTEM.md": ""})
    assert cache.get(root / "p", root / "agent").system.append_text is None


def test_each_cwd_has_its_own_entry_and_invalidate_forgets(root: Path, write_tree) -> None:
    write_tree({"p/AGENTS.md": "p", "q/AGENTS.md": "q"})
    fs = CountingFs()
    cache = PromptSourcesCache(fs=fs)
    p_context = cache.get(root / "p", root / "agent")
    q_context = cache.get(root / "q", root / "agent")
    assert [f.content for f in p_context.files] == ["p"]
    assert [f.content for f in q_context.files] == ["q"]
    assert cache.get(root / "p", root / "agent") is p_context
    cache.invalidate(root / "p")
    assert cache.get(root / "p", root / "agent") is not p_context
    assert cache.get(root / "q", root / "agent") is q_context
    cache.invalidate()
    assert cache.get(root / "q", root / "agent") is not q_context
    assert fs.reads[str(root / "p/AGENTS.md")] == 2

""".gitignore handling of the grep/find walk, and a 10,000-file tree (correctness, not timing)."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.tools.walk import walk
from tests.unit.tools.conftest import Workspace


def files(root: Path) -> list[str]:
    return [entry.rel for entry in walk(str(root)) if not entry.is_dir]


def make(root: Path, rels: list[str], gitignores: dict[str, str]) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    for rel, text in gitignores.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_nested_gitignore_and_negation(tmp_path: Path) -> None:
    make(
        tmp_path,
        [
            "a.log",
            "keep.log",
            "src/b.log",
            "src/c.py",
            "src/gen/d.py",
            "src/gen/keep.py",
            "docs/e.md",
        ],
        {
            ".gitignore": "*.log\n!keep.log\n/docs\n",
            "src/.gitignore": "gen/*\n!gen/keep.py\n!b.log\n",
        },
    )
    assert files(tmp_path) == [
        ".gitignore",
        "keep.log",
        "src/.gitignore",
        "src/b.log",
        "src/c.py",
        "src/gen/keep.py",
    ]


def test_an_ignored_directory_cannot_be_re_included_from_inside(tmp_path: Path) -> None:
    make(
        tmp_path,
        ["out/x.txt", "out/sub/y.txt"],
        {".gitignore": "out/\n", "out/.gitignore": "!x.txt\n"},
    )
    assert files(tmp_path) == [".gitignore"]


def test_anchored_and_directory_only_patterns(tmp_path: Path) -> None:
    make(tmp_path, ["tmp", "a/tmp/f", "build/f", "a/build"], {".gitignore": "/tmp\nbuild/\n"})
    assert files(tmp_path) == [".gitignore", "a/build", "a/tmp/f"]


def test_parent_gitignore_applies_inside_a_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    make(tmp_path, ["pkg/a.tmp", "pkg/b.txt"], {".gitignore": "*.tmp\n"})
    assert files(tmp_path / "pkg") == ["b.txt"]


def test_parent_gitignore_outside_a_repository_is_not_read(tmp_path: Path) -> None:
    make(tmp_path, ["pkg/a.tmp"], {".gitignore": "*.tmp\n"})
    assert files(tmp_path / "pkg") == ["a.tmp"]


def test_hidden_files_yes_git_directory_no_symlinks_not_followed(tmp_path: Path) -> None:
    make(tmp_path, [".hidden/x", ".git/HEAD", "real/f"], {})
    (tmp_path / "link").symlink_to(tmp_path / "real")
    entries = [(e.rel, e.is_dir, e.is_symlink) for e in walk(str(tmp_path))]
    assert entries == [
        (".hidden", True, False),
        (".hidden/x", False, False),
        ("link", False, True),
        ("real", True, False),
        ("real/f", False, False),
    ]


def gitignores(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.glob("pkg*/.gitignore")]


async def test_ten_thousand_files(ws: Workspace) -> None:
    expected: list[str] = []
    for d in range(100):
        for f in range(100):
            rel = f"pkg{d:02d}/mod{f:02d}.{'log' if f % 10 == 0 else 'py'}"
            path = ws.root / rel
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"def f{f}():\n    return {d * 100 + f}\n")
            ignored = rel.endswith(".log") or (d % 10 == 0 and f >= 50)
            if not ignored:
                expected.append(rel)
    (ws.root / ".gitignore").write_text("*.log\n")
    for d in range(0, 100, 10):
        (ws.root / f"pkg{d:02d}" / ".gitignore").write_text("mod5*\nmod6*\nmod7*\nmod8*\nmod9*\n")
    assert files(ws.root) == sorted([".gitignore", *expected, *gitignores(ws.root)])
    assert len(expected) == 9000 - 10 * 45
    found = await ws.run("find", {"pattern": "*.py", "limit": 20000})
    listing, notice = found.text.rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]"
    assert listing.split("\n") == expected[: len(listing.split("\n"))]
    names = [f"mod{f:02d}.{'py' if f % 10 else 'log'}" for f in range(50)]
    in_one = await ws.run("find", {"pattern": "mod*", "path": "pkg10"})
    assert in_one.text.split("\n") == names  # the root's *.log rule is outside the search
    (ws.root / ".git").mkdir()
    in_repo = await ws.run("find", {"pattern": "mod*", "path": "pkg10"})
    assert in_repo.text.split("\n") == [name for name in names if name.endswith(".py")]
    hits = await ws.run("grep", {"pattern": "return 4242$"})
    assert hits.text == "pkg42/mod42.py:2:     return 4242"
    ignored = await ws.run("grep", {"pattern": "return 1055$"})
    assert ignored.text == "No matches found"
    many = await ws.run("grep", {"pattern": "def f7\\(", "limit": 1000})
    assert len(many.text.split("\n")) == 100

"""Which files grep and find visit: a walk that honours ``.gitignore`` files, and globs.

The walk works like ripgrep's and fd's.

Rules come from every ``.gitignore`` under the search root (each relative to its own directory,
negation included) and from those between the enclosing git repository's root and the search
root, read with ``pathspec.GitIgnoreSpec``. The deepest file with a matching rule decides; an
ignored directory is not entered, so nothing below it can be re-included (git's rule). Hidden
files are walked (``--hidden``); ``.git`` is not. Symbolic links are reported but never
followed. The walk reads the disk directly and is meant to run in a worker thread. Entries come
in name order, depth first, so results are stable (rg and fd print in whatever order their
threads finish).

Glob patterns are those of rg's and fd's ``--glob``, compiled to regular expressions: ``*`` and
``?`` stay within one path component, ``**`` crosses components (``**/`` also matches no
directory at all), ``[...]``/``[!...]`` are character classes and ``{a,b}`` alternatives. A
pattern without ``/`` is matched against the file name, one with ``/`` against the path relative
to the search root, as both tools do for the patterns models write.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pathspec

from pi_lsp.safety import MiB, read_regular

GITIGNORE = ".gitignore"
GITIGNORE_MAX_BYTES = 4 * MiB
"""A ``.gitignore`` that is larger, or not a regular file (a FIFO would hang the walk), is
skipped."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One walked path."""

    path: str
    """Absolute path."""
    rel: str
    """Path relative to the search root, ``/``-separated."""
    name: str
    is_dir: bool
    is_symlink: bool


@dataclass(frozen=True, slots=True)
class _Rules:
    """The rules of one ``.gitignore`` and how root-relative paths become relative to it."""

    spec: pathspec.GitIgnoreSpec
    strip: str
    """A rule file below the root: its directory relative to the root (``""`` or ``dir/``)."""
    prepend: str = ""
    """A rule file above the root: the root relative to the file's directory, plus ``/``."""


def _load_rules(directory: str, strip: str, prepend: str = "") -> _Rules | None:
    try:
        data = read_regular(os.path.join(directory, GITIGNORE), GITIGNORE_MAX_BYTES)
        lines = data.decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    return _Rules(pathspec.GitIgnoreSpec.from_lines(lines), strip, prepend)


def _ancestor_rules(root: str) -> list[_Rules]:
    """Rules of ``.gitignore`` files above ``root`` up to its repository's root, outermost first.

    None when ``root`` is not inside a git repository, or is that repository's root.
    """
    chain: list[str] = []
    current = os.path.dirname(root)
    while True:
        chain.append(current)
        if os.path.exists(os.path.join(current, ".git")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            return []
        current = parent
    if os.path.exists(os.path.join(root, ".git")):
        return []
    rules: list[_Rules] = []
    for directory in reversed(chain):
        rel = os.path.relpath(root, directory).replace(os.sep, "/")
        loaded = _load_rules(directory, "", rel + "/")
        if loaded is not None:
            rules.append(loaded)
    return rules


def is_ignored(rules: list[_Rules], rel: str, is_dir: bool) -> bool:
    """Whether the deepest rule that matches ``rel`` ignores it."""
    for rule in reversed(rules):
        if not rel.startswith(rule.strip):
            continue
        target = rule.prepend + rel[len(rule.strip) :] + ("/" if is_dir else "")
        verdict = rule.spec.check_file(target).include
        if verdict is not None:
            return bool(verdict)
    return False


Prune = Callable[[Entry], bool]
"""Leaves an entry (and everything below it) out of the walk when it returns True."""


def walk(
    root: str, stop: threading.Event | None = None, *, prune: Prune | None = None
) -> Iterator[Entry]:
    """Every entry under ``root`` that no ``.gitignore`` excludes, depth first in name order.

    The walk ends early once ``stop`` is set.
    """
    base_rules = _ancestor_rules(root)
    yield from _walk_dir(root, "", base_rules, stop, prune)


def _walk_dir(
    directory: str,
    rel_dir: str,
    rules: list[_Rules],
    stop: threading.Event | None,
    prune: Prune | None,
) -> Iterator[Entry]:
    local = _load_rules(directory, rel_dir)
    if local is not None:
        rules = [*rules, local]
    try:
        with os.scandir(directory) as scanner:
            children = sorted(scanner, key=lambda child: child.name)
    except OSError:
        return
    for child in children:
        if stop is not None and stop.is_set():
            return
        if child.name == ".git":
            continue
        try:
            is_symlink = child.is_symlink()
            is_dir = child.is_dir(follow_symlinks=False)
        except OSError:
            continue
        rel = rel_dir + child.name
        if is_ignored(rules, rel, is_dir):
            continue
        entry = Entry(child.path, rel, child.name, is_dir, is_symlink)
        if prune is not None and prune(entry):
            continue
        yield entry
        if is_dir:
            yield from _walk_dir(child.path, rel + "/", rules, stop, prune)


def glob_to_regex(glob: str) -> str:
    """The regular expression (anchored at both ends) for one glob."""
    out: list[str] = []
    depth = 0
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        index += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", index + 1 if glob.startswith(("]", "!]"), index) else index)
            if end < 0:
                out.append(re.escape(char))
                continue
            body = glob[index:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            index = end + 1
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index < len(glob):
            out.append(re.escape(glob[index]))
            index += 1
        else:
            out.append(re.escape(char))
    out.extend(")" * depth)
    return "^" + "".join(out) + "$"


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled glob; ``negated`` for rg's ``!pattern`` exclusions."""

    pattern: re.Pattern[str]
    full_path: bool
    """Match the root-relative path rather than the file name."""
    negated: bool = False

    def matches(self, rel: str, name: str) -> bool:
        """Whether the entry with this relative path and name matches."""
        return self.pattern.match(rel if self.full_path else name) is not None


def compile_glob(glob: str) -> Glob:
    """Compile one glob (a leading ``!`` negates, a leading ``/`` anchors at the root)."""
    negated = glob.startswith("!")
    if negated:
        glob = glob[1:]
    full_path = "/" in glob.rstrip("/")
    glob = glob.lstrip("/").rstrip("/") if full_path else glob.rstrip("/")
    try:
        pattern = re.compile(glob_to_regex(glob), re.DOTALL)
    except re.error:
        pattern = re.compile(re.escape(glob) + r"\Z")
    return Glob(pattern, full_path, negated)

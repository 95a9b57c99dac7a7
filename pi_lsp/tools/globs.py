"""Glob patterns as rg's ``--glob`` and fd's ``--glob`` use them, compiled to regular expressions.

``*`` and ``?`` stay within one path component, ``**`` crosses components (``**/`` also matches
no directory at all), ``[...]``/``[!...]`` are character classes and ``{a,b}`` alternatives. A
pattern without ``/`` is matched against the file name, one with ``/`` against the path relative
to the search root, as both tools do for the patterns models write. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


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

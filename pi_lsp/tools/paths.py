"""pi's path handling for tool arguments: normalization, ``~``, the session cwd, read fallbacks.

A path from the model loses a leading ``@`` (models copy pi's file mentions), has Unicode space
variants turned into ASCII spaces, expands ``~`` and ``~/``, and resolves against the session's
working directory. ``read`` also tries the spellings macOS uses in screenshot names when the
path as written does not exist: a narrow no-break space before ``AM``/``PM``, NFD, and a curly
apostrophe.
"""

from __future__ import annotations

import os
import re
import unicodedata

from pi_lsp.tools.errors import ToolError
from pi_lsp.tools.fs import FileSystem

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.")
_NARROW_NO_BREAK_SPACE = "\u202f"


def expand_path(path: str) -> str:
    """Strip one leading ``@``, normalize Unicode spaces, expand ``~`` and ``~/``."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """An absolute path as given; a relative one joined to ``cwd`` and normalized.

    A NUL byte (no file can have it in its name; Python's file calls raise ``ValueError``) is
    the tool's error, never a crash of the turn.
    """
    if "\0" in path:
        raise ToolError(f"Invalid path {path!r}: a path cannot contain a NUL byte.")
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(os.path.join(cwd, expanded))


def read_path_variants(resolved: str) -> list[str]:
    """Spellings to try, in pi's order, when ``resolved`` does not exist."""
    nfd = unicodedata.normalize("NFD", resolved)
    candidates = [
        _AM_PM.sub(_NARROW_NO_BREAK_SPACE + r"\1.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    ]
    variants: list[str] = []
    for candidate in candidates:
        if candidate != resolved and candidate not in variants:
            variants.append(candidate)
    return variants


async def resolve_read_path(path: str, cwd: str, fs: FileSystem) -> str:
    """``resolve_to_cwd`` plus the macOS fallbacks; the plain path when none exists."""
    resolved = resolve_to_cwd(path, cwd)
    if await fs.exists(resolved):
        return resolved
    for variant in read_path_variants(resolved):
        if await fs.exists(variant):
            return variant
    return resolved

"""Which paths the permission gate treats specially: files that run code, and secret sources.

Both lists are glob patterns over path components (``fnmatch``, case-sensitive). A pattern of
one component (``.git``, ``*.pem``) matches a path with that component anywhere, so everything
below a matching directory is covered; a pattern with slashes (``.ssh/id_*``) matches that many
consecutive components anywhere in the path. Protected patterns are matched against the path
inside its workspace folder (a folder that itself lives below a ``.git`` is not all protected);
secret patterns against the whole absolute path (reads may go anywhere).

Besides the configurable lists, some sources are secret whatever the settings say: every
process's environment (``/proc/<pid>/environ``, the daemon's own holds the provider keys) and
the agent directory's ``auth.json`` and ``models.json`` (pi keeps API keys there). Pure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

PROTECTED_DEFAULTS = (
    ".git",
    ".pi",
    ".agents",
    ".vscode",
    ".idea",
    ".devcontainer",
    ".husky",
    ".githooks",
    ".envrc",
    ".nvim.lua",
    ".nvimrc",
    ".exrc",
)
"""Inside a workspace, writes here are asked: git hooks and config, pi's project settings,
extensions and skills, editor tasks and launch settings, direnv and Neovim's exrc files all run
code or change what runs without the user typing a command."""

SECRET_DEFAULTS = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".aws/credentials",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
    ".gnupg",
)
"""Reads of these are asked first (they hold keys, tokens and passwords)."""

_ENVIRON = re.compile(r"^/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/environ$")
AGENT_SECRETS = ("auth.json", "models.json")


def components(path: str) -> list[str]:
    """The non-empty components of a path."""
    return [part for part in path.split(os.sep) if part]


def matches_any(parts: Sequence[str], patterns: Sequence[str]) -> str | None:
    """The first pattern matching consecutive components of ``parts``, else None."""
    for pattern in patterns:
        wanted = components(pattern)
        if not wanted:
            continue
        span = len(wanted)
        for start in range(len(parts) - span + 1):
            window = parts[start : start + span]
            if all(fnmatchcase(part, want) for part, want in zip(window, wanted, strict=True)):
                return pattern
    return None


def inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it (both real, absolute paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def protected_pattern(real: str, root: str, patterns: Sequence[str], agent: str) -> str | None:
    """Why a write to ``real`` inside the folder ``root`` is asked, or None when it is not."""
    if inside(real, agent):
        return "the pi agent directory"
    relative = os.path.relpath(real, root)
    return matches_any(components(relative), patterns)


def secret_pattern(path: str, patterns: Sequence[str], agent: str) -> str | None:
    """Why reading the absolute ``path`` is asked, or None when it is not."""
    if _ENVIRON.match(path):
        return "a process environment"
    if os.path.dirname(path) == agent.rstrip(os.sep) and os.path.basename(path) in AGENT_SECRETS:
        return "pi's credentials"
    return matches_any(components(path), patterns)

"""Where pi keeps sessions: ``<agentDir>/sessions/--<encoded cwd>--/`` (spec §1.1, D1)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$PI_CODING_AGENT_DIR`` (``~`` expanded) or ``~/.pi/agent``."""
    env = os.environ if env is None else env
    configured = env.get(AGENT_DIR_ENV)
    if configured:
        if configured == "~" or configured.startswith(("~/", "~\\")):
            return Path(os.path.expanduser("~") + configured[1:])
        return Path(configured)
    return Path(os.path.expanduser("~")) / ".pi" / "agent"


def sessions_root(agent: Path | None = None) -> Path:
    """The folder holding one sub-folder per working directory."""
    return (agent or agent_dir()) / "sessions"


def encode_cwd(cwd: str) -> str:
    """The folder name pi uses for a cwd.

    One leading separator is dropped, separators and colons become ``-``, and the result is
    wrapped in ``--``.
    """
    trimmed = cwd[1:] if cwd.startswith(("/", "\\")) else cwd
    for char in "/\\:":
        trimmed = trimmed.replace(char, "-")
    return f"--{trimmed}--"


def session_dir(cwd: str, agent: Path | None = None) -> Path:
    """The folder holding the sessions of ``cwd`` (not created here)."""
    return sessions_root(agent) / encode_cwd(cwd)


def lexical_path(path: str | Path) -> Path:
    """``path`` made absolute as pi's ``resolvePath`` does, symlinks kept.

    ``~`` is expanded and ``.``/``..`` are folded without touching the file system; pi records
    session paths this way (``parentSession``), so a folder reached through a symlink keeps
    the name it was reached by.
    """
    return Path(os.path.abspath(os.path.expanduser(path)))

"""Where pi keeps sessions: ``<agentDir>/sessions/--<encoded cwd>--/`` (spec §1.1, D1).

Or one custom folder shared by every project (pi 1.6.0).

pi 1.6.0 takes the folder from ``--session-dir``, else ``$PI_CODING_AGENT_SESSION_DIR`` (``~``
expanded), else the ``sessionDir`` setting; a custom folder holds the files of every cwd side by
side, so lists and ``--continue`` keep only the sessions whose header names the cwd.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"


def _expand_tilde(path: str) -> str:
    """pi's ``expandTildePath``: a leading ``~`` or ``~/`` is the home folder."""
    if path == "~" or path.startswith(("~/", "~\\")):
        return os.path.expanduser("~") + path[1:]
    return path


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$PI_CODING_AGENT_DIR`` (``~`` expanded) or ``~/.pi/agent``."""
    env = os.environ if env is None else env
    configured = env.get(AGENT_DIR_ENV)
    if configured:
        return Path(_expand_tilde(configured))
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


def default_session_dir(cwd: str, agent: Path | None = None) -> Path:
    """pi's own folder for ``cwd``'s sessions under the agent directory."""
    return sessions_root(agent) / encode_cwd(cwd)


def custom_session_dir(
    cwd: str, configured: str | None = None, env: Mapping[str, str] | None = None
) -> Path | None:
    """``$PI_CODING_AGENT_SESSION_DIR``, else the ``sessionDir`` setting, else None.

    Both have ``~`` expanded; a relative one is taken from ``cwd``, the folder pi is started in.
    """
    env = os.environ if env is None else env
    chosen = env.get(SESSION_DIR_ENV) or configured
    if not chosen:
        return None
    return Path(os.path.abspath(os.path.join(cwd, _expand_tilde(chosen))))


def session_dir(
    cwd: str,
    agent: Path | None = None,
    configured: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """The folder new sessions of ``cwd`` go to and its sessions are found in (not created)."""
    return custom_session_dir(cwd, configured, env) or default_session_dir(cwd, agent)


def shared_folder(folder: Path, cwd: str, agent: Path | None = None) -> bool:
    """True when ``folder`` may hold other cwds' sessions: any but pi's own folder for ``cwd``.

    A list or ``--continue`` there keeps only the files whose header names ``cwd``.
    """
    return os.path.abspath(folder) != os.path.abspath(default_session_dir(cwd, agent))


def same_cwd(recorded: object, cwd: str) -> bool:
    """pi's ``sessionCwdMatches``: a header's cwd names ``cwd`` (both made absolute)."""
    return (
        isinstance(recorded, str)
        and recorded != ""
        and os.path.abspath(os.path.expanduser(recorded)) == os.path.abspath(cwd)
    )


def lexical_path(path: str | Path) -> Path:
    """``path`` made absolute as pi's ``resolvePath`` does, symlinks kept.

    ``~`` is expanded and ``.``/``..`` are folded without touching the file system; pi records
    session paths this way (``parentSession``), so a folder reached through a symlink keeps
    the name it was reached by.
    """
    return Path(os.path.abspath(os.path.expanduser(path)))

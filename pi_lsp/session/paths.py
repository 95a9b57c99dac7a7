"""pi's names for sessions: where their files live, what they are called, ids and times.

Everything a session is found or named by, in pi's formats (spec §1.1, §1.3–1.4, D1).

- Folders: ``<agentDir>/sessions/--<encoded cwd>--/``, or one custom folder shared by every
  project (pi 1.6.0), taken from ``--session-dir``, else ``$PI_CODING_AGENT_SESSION_DIR`` (``~``
  expanded), else the ``sessionDir`` setting. A custom folder holds the files of every cwd side
  by side, so lists and ``--continue`` keep only the sessions whose header names the cwd.
- Names: ``<ISO time>_<session id>.jsonl``, v7 session ids, 8-hex entry ids and
  ``toISOString`` times. The id factory and the clock are injected so tests stay deterministic.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Container, Mapping
from datetime import UTC, datetime
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


IdFactory = Callable[[], str]
"""Returns a fresh random 36-character v4 UUID string; tests inject a deterministic one."""

Clock = Callable[[], float]
"""Returns seconds since the epoch; tests inject a controlled clock."""


def random_uuid() -> str:
    """A fresh v4 UUID, as ``crypto.randomUUID()``."""
    return str(uuid.uuid4())


def uuid7(ms: int, random_source: str) -> str:
    """A v7 UUID (pi 1.6.0's session ids): ``ms`` in the top 48 bits, then random bits.

    The random bits come from ``random_source``, a v4 UUID from the injected id factory, so
    tests stay deterministic; a source that is not a UUID is returned unchanged.
    """
    try:
        bits = uuid.UUID(random_source).int
    except ValueError:
        return random_source
    rand_a = (bits >> 64) & 0xFFF
    rand_b = bits & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))


def new_entry_id(existing: Container[str], uuids: IdFactory = random_uuid) -> str:
    """8 hex characters of a fresh UUID, redrawn on collision; the full UUID after 100 tries."""
    for _ in range(100):
        candidate = uuids()[:8]
        if candidate not in existing:
            return candidate
    return uuids()


def iso_time(seconds: float) -> str:
    """``Date.prototype.toISOString()``: UTC, always three millisecond digits, literal ``Z``."""
    millis = int(seconds * 1000)
    stamp = datetime.fromtimestamp(millis // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{millis % 1000:03d}Z"


def parse_iso_ms(text: str) -> int | None:
    """Epoch milliseconds of an ISO time (``new Date(text).getTime()``), None if unparsable."""
    try:
        parsed = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    whole = parsed.replace(microsecond=0)
    return int(whole.timestamp()) * 1000 + parsed.microsecond // 1000


def session_file_name(header_timestamp: str, session_id: str) -> str:
    """``<ISO time with ':' and '.' replaced by '-'>_<sessionId>.jsonl``."""
    return f"{header_timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def now() -> float:
    """The default clock."""
    return time.time()

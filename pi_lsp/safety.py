"""The safety rules every layer relies on: safe reads, special paths, trusted projects.

**Reads** that cannot freeze or bloat the daemon: regular files only, never past a limit.
``open()`` on a FIFO blocks until a writer appears (forever, for a FIFO nobody writes), and
``read()`` on ``/dev/zero``, ``/dev/stdin`` (the editor's own protocol stream) or a socket never
ends or steals bytes meant for someone else. :func:`read_regular` opens without blocking
(``O_NONBLOCK``), checks on the open descriptor that it is a regular file, and refuses one
larger than the limit before reading it; it also never reads more than the limit from a
"regular" file that keeps growing (``/proc`` files report size 0). The errors are ``OSError``
subclasses, so callers that already turn ``OSError`` into a message keep working.

Used by the tools (read, edit, grep, the .gitignore and context-file loaders) and, through
:func:`open_regular`, by the session reader, listing and discovery. Blocking: call it in a
worker thread for anything that may be large or slow (:func:`read_regular_async`).

**Paths** the permission gate treats specially: files that run code, and secret sources.
Both lists are glob patterns over path components (``fnmatch``, case-sensitive). A pattern of
one component (``.git``, ``*.pem``) matches a path with that component anywhere, so everything
below a matching directory is covered; a pattern with slashes (``.ssh/id_*``) matches that many
consecutive components anywhere in the path. Protected patterns are matched against the path
inside its workspace folder (a folder that itself lives below a ``.git`` is not all protected);
secret patterns against the whole absolute path (reads may go anywhere).

Besides the configurable lists, some sources are secret whatever the settings say: every
process's environment (``/proc/<pid>/environ``, the daemon's own holds the provider keys) and
the agent directory's ``auth.json`` and ``models.json`` (pi keeps API keys there). The matching
is pure.

**Project trust**, pi 1.6.0's way: decisions the user saved outside the project.
A folder's ``.pi/settings.json`` travels with the folder: a cloned repository ships it, and the
agent itself can write it. So what in it matters for safety (``SAFETY_KEYS``: permissions, the
shell and its command prefix, the provider endpoint) applies only when the user trusted the
project. The decision lives in ``<agentDir>/trust.json``, pi's own file and format: canonical
directory paths mapped to ``true`` (trusted), ``false`` (not trusted) or ``null`` (no decision);
the nearest entry at or above the folder applies, so trusting a parent trusts what is below it.
pi's ``/trust`` and ``pi-lsp trust DIR`` write it. Without a decision the agent-directory setting
``defaultProjectTrust`` applies: ``always`` trusts, ``ask`` and ``never`` do not (the daemon
cannot show pi's interactive prompt; pi's print and RPC modes decide the same way).

An untrusted project may still make permissions stricter (a policy closer to ``deny``, more
protected or secret patterns, a shorter answer timeout); everything else in its file applies as
before. Writes into ``.pi/`` are asked (``writeProtected``), and so is writing ``trust.json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import re
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

MiB = 1024 * 1024


class NotRegularFileError(OSError):
    """The path is a FIFO, device, socket or other non-regular file."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({describe_mode(mode)})", path)
        self.mode = mode


class FileTooLargeError(OSError):
    """The file is larger than the reader's limit."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"file too large ({size} bytes; limit {limit})", path)
        self.size = size
        self.limit = limit


def describe_mode(mode: int) -> str:
    """A word for a file type (for error messages)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the regular file at ``path`` (links followed); never blocks.

    Raises ``IsADirectoryError``, ``NotRegularFileError`` for a FIFO, device or socket, and the
    errors of ``open`` (``FileNotFoundError``, ``PermissionError``…). The descriptor is
    blocking again when returned; the caller closes it and reads it in bounded chunks.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(str(path), mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (links followed), at most ``limit`` of them.

    Raises ``NotRegularFileError`` for anything but a regular file, ``FileTooLargeError`` when
    it is (or grows) larger than ``limit``, ``IsADirectoryError``, ``FileNotFoundError`` and the
    other errors of ``open``. Never blocks on a FIFO or a device.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileTooLargeError(path, size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(max(size, 64 * 1024), limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLargeError(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


async def read_regular_async(path: str, limit: int) -> bytes:
    """:func:`read_regular` in a worker thread, so a big or slow file never blocks the loop."""
    return await asyncio.to_thread(read_regular, path, limit)


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


TRUST_FILE = "trust.json"
SAFETY_KEYS = ("permissions", "shellPath", "shellCommandPrefix", "apiBase", "sessionDir")
"""Project settings that need trust (``defaultProjectTrust`` is read from the agent dir only)."""
AGENT_ONLY_KEYS = ("defaultProjectTrust",)
_POLICY_ORDER = {"allow": 0, "ask": 1, "deny": 2}
_LOCK_STALE_S = 10.0


class TrustStoreError(ValueError):
    """``trust.json`` exists but is not pi's format (nothing is trusted then)."""


def canonical(path: str | Path) -> str:
    """The key pi uses for a directory: absolute, ``~`` expanded, links resolved."""
    return os.path.realpath(os.path.abspath(os.path.expanduser(str(path))))


def read_store(agent: Path) -> dict[str, bool | None]:
    """The saved decisions; ``TrustStoreError`` when the file is not pi's format."""
    path = agent / TRUST_FILE
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TrustStoreError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TrustStoreError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or any(v not in (True, False, None) for v in data.values()):
        raise TrustStoreError(f"{path}: expected an object of true, false or null")
    return data


def decision(cwd: str | Path, agent: Path) -> bool | None:
    """The nearest saved decision at or above ``cwd``, else None."""
    store = read_store(agent)
    current = canonical(cwd)
    while True:
        value = store.get(current)
        if value is True or value is False:
            return value
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def is_trusted(cwd: str | Path, agent: Path, default: object, problems: list[str]) -> bool:
    """Whether the project at ``cwd`` is trusted (``default``: ``defaultProjectTrust``)."""
    try:
        saved = decision(cwd, agent)
    except TrustStoreError as exc:
        problems.append(f"{exc}; no project is trusted")
        return False
    if saved is not None:
        return saved
    return default == "always"


def save(cwd: str | Path, value: bool | None, agent: Path) -> str:
    """Record a decision for ``cwd`` (None forgets it) as pi does; returns the key written."""
    key = canonical(cwd)
    with _locked(agent / TRUST_FILE):
        store = read_store(agent)
        store.pop(key, None)
        if value is not None:
            store[key] = value
        text = json.dumps({k: store[k] for k in sorted(store)}, indent=2) + "\n"
        temporary = agent / f".{TRUST_FILE}.{os.getpid()}.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, agent / TRUST_FILE)
    return key


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """pi's lock on the trust file: the directory ``<file>.lock`` (proper-lockfile's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = Path(f"{path}.lock")
    for _attempt in range(50):
        try:
            lock.mkdir()
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > _LOCK_STALE_S:
                    lock.rmdir()
                    continue
            time.sleep(0.02)
    else:
        raise TrustStoreError(f"{lock} is held by another process")
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


def untrusted_layer(
    project: Mapping[str, Any], base: Mapping[str, Any], defaults: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """An untrusted project's settings without what could relax safety; and the keys dropped.

    ``base`` is the merged lower layers (the agent directory's file), ``defaults`` the
    permission defaults: a project policy is kept only when stricter than the one it would
    replace.
    """
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in project.items():
        if key in AGENT_ONLY_KEYS or (key in SAFETY_KEYS and key != "permissions"):
            dropped.append(key)
        elif key == "permissions" and isinstance(value, dict):
            lower = base.get("permissions")
            lower = {**defaults, **(lower if isinstance(lower, dict) else {})}
            strict, relaxed = _stricter(value, lower)
            if strict:
                kept[key] = strict
            dropped += [f"permissions.{name}" for name in relaxed]
        elif key == "permissions":
            dropped.append(key)
        else:
            kept[key] = value
    return kept, dropped


def _stricter(
    project: Mapping[str, Any], lower: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    strict: dict[str, Any] = {}
    relaxed: list[str] = []
    for name, value in project.items():
        current = lower.get(name)
        if (
            isinstance(value, str)
            and isinstance(current, str)
            and {value, current} <= set(_POLICY_ORDER)
        ):
            keep = _POLICY_ORDER[value] >= _POLICY_ORDER[current]
        elif name in ("protectedPaths", "secretPaths") and isinstance(value, list):
            value = [*(current if isinstance(current, list) else []), *value]
            keep = True
        elif name == "timeoutMs" and isinstance(value, int) and isinstance(current, int):
            keep = value <= current
        else:
            keep = False
        if keep:
            strict[name] = value
        else:
            relaxed.append(name)
    return strict, relaxed

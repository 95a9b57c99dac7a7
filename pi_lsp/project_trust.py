"""Project trust, pi 1.6.0's way: decisions the user saved outside the project.

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

import contextlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

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

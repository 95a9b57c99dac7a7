"""Operations that make a new session file out of an existing one (spec §2).

``branched_session`` extracts the root-to-entry path into a new file (pi's
``createBranchedSession``, fixed per D2: no ``parentId`` ever points at an entry the new file does
not contain); ``fork_from`` copies every entry of another file under a new header;
``continue_recent`` opens the newest session of a folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_lsp.safety import open_regular
from pi_lsp.session.entries import SessionHeader, as_header
from pi_lsp.session.jsonl import Record, SessionFileError, dumps, dumps_line, loads
from pi_lsp.session.paths import (
    Clock,
    IdFactory,
    lexical_path,
    now,
    random_uuid,
    same_cwd,
    session_dir,
    shared_folder,
)
from pi_lsp.session.reader import read_session_file
from pi_lsp.session.session_file import create_exclusive
from pi_lsp.session.store import SessionStore


def branched_session(
    store: SessionStore,
    leaf_id: str,
    *,
    directory: Path | None = None,
    clock: Clock = now,
    uuids: IdFactory = random_uuid,
) -> SessionStore:
    """A new session holding the path to ``leaf_id`` and the labels of its entries.

    Label entries on the path are dropped and the labels whose target is on the path are
    re-created as fresh label entries at the end, as pi does. Unlike pi v0.58.3, an entry whose
    parent was a dropped label (or is missing) is re-linked to the previous kept entry. The file
    is written at once when the path holds an assistant message, else with the first one.
    """
    path = store.branch_path(leaf_id)
    kept: list[Record] = []
    for record in path:
        if record.type == "label":
            continue
        expected_parent = kept[-1].id if kept else None
        kept.append(
            record if record.parent_id == expected_parent else _relinked(record, expected_parent)
        )
    on_path = {r.id for r in kept}
    source_path = store.path
    new = SessionStore.create(
        store.cwd,
        directory=directory
        if directory is not None
        else (source_path.parent if source_path else None),
        parent_session=str(source_path) if source_path is not None else None,
        persist=source_path is not None,
        records=kept,
        clock=clock,
        uuids=uuids,
    )
    for target, label in store.labels.items():
        if target in on_path:
            new.append_label(target, label)
    return new


def _relinked(record: Record, parent: str | None) -> Record:
    value = dict(record.value)
    value["parentId"] = parent
    return Record.from_value(value, dumps(value), record.line)


def fork_from(
    source: str | Path,
    target_cwd: str,
    *,
    directory: Path | None = None,
    clock: Clock = now,
    uuids: IdFactory = random_uuid,
) -> SessionStore:
    """Copy every entry of ``source`` (all branches) into a new session of ``target_cwd``.

    The copy is written at once with ``parentSession`` pointing at the source: its path as
    given, made absolute lexically (symlinks are not resolved), as pi records it. An
    old-version source is migrated in memory first (pi copies it unmigrated, producing a broken
    file).

    Raises:
        SessionFileError: the source is missing, empty or not a session file.
    """
    source = lexical_path(source)
    loaded = read_session_file(source, uuids=uuids)
    if loaded.header is None:
        raise SessionFileError(source, 0, "cannot fork: not a session file or empty")
    new = SessionStore.create(
        target_cwd, directory=directory, parent_session=str(source), clock=clock, uuids=uuids
    )
    assert new.path is not None
    content = dumps_line(new.header) + b"".join(r.raw + b"\n" for r in loaded.records)
    create_exclusive(new.path, content)
    return SessionStore.open(new.path, clock=clock, uuids=uuids)


def read_header(path: Path, limit: int = 65536) -> SessionHeader | None:
    """The header of a session file from its first line, or None if it has none."""
    try:
        fd = open_regular(path)  # a FIFO named *.jsonl must not stall discovery
    except OSError:
        return None
    try:
        with open(fd, "rb", closefd=False) as handle:
            first = handle.readline(limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        value = loads(first)
    except ValueError:
        return None
    return as_header(value)


def most_recent_session(directory: Path, cwd: str | None = None) -> Path | None:
    """The ``*.jsonl`` file with a valid header and the newest mtime, as pi's ``continueRecent``.

    With ``cwd``, only a file whose header names it counts.
    """
    best: tuple[int, str] | None = None
    found: Path | None = None
    try:
        candidates = list(directory.glob("*.jsonl"))
    except OSError:
        return None
    for path in candidates:
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            continue
        header = read_header(path)
        if header is None or (cwd is not None and not same_cwd(header.get("cwd"), cwd)):
            continue
        key = (mtime, path.name)
        if best is None or key > best:
            best, found = key, path
    return found


def continue_recent(
    cwd: str,
    *,
    directory: Path | None = None,
    configured: str | None = None,
    clock: Clock = now,
    uuids: IdFactory = random_uuid,
) -> SessionStore:
    """Open the newest session of ``cwd``'s folder, or start a new one there.

    ``configured`` is the ``sessionDir`` setting; in a folder other cwds share, only sessions
    whose header names ``cwd`` count (pi 1.6.0).
    """
    folder = directory if directory is not None else session_dir(cwd, configured=configured)
    recent = most_recent_session(folder, cwd if shared_folder(folder, cwd) else None)
    if recent is not None:
        return SessionStore.open(recent, clock=clock, uuids=uuids)
    return SessionStore.create(cwd, directory=folder, clock=clock, uuids=uuids)

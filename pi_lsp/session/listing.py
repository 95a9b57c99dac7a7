"""Session lists with pi's metadata (spec §2, ``SessionManager.list`` / ``listAll``).

Each file is scanned once with a typed decoder that validates every line but only builds the
fields the list needs (tool results and thinking are skipped, not materialised). Results are
cached per file, keyed by (inode, size, mtime); a file that only grew is read from where the last
scan stopped, so listing a folder where one session just got a turn re-reads one turn.

Memory stays bounded whatever the folder holds: only regular files are opened (a ``*.jsonl``
FIFO or a link to ``/dev/zero`` is skipped, never waited on), a file is streamed in chunks, a
file without a session header in its first :data:`HEADER_LIMIT` bytes is dropped unread, a line
longer than :data:`MAX_LINE` is skipped without being buffered, and the search text kept per
session stops at :data:`TEXT_LIMIT` characters. Callers on an event loop run it in a thread.
"""

from __future__ import annotations

import gc
import os
import stat
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import msgspec
from pydantic import BaseModel, ConfigDict

from pi_lsp.safety import open_regular
from pi_lsp.session.jsonl import JsonLineError, loads
from pi_lsp.session.messages import content_text
from pi_lsp.session.paths import (
    custom_session_dir,
    iso_time,
    parse_iso_ms,
    same_cwd,
    session_dir,
    sessions_root,
    shared_folder,
)


class SessionInfo(BaseModel):
    """pi's ``SessionInfo`` for one session file (spec §2)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    id: str
    cwd: str
    """Header cwd, ``""`` when missing."""
    name: str | None = None
    """Latest non-empty ``session_info`` name (any branch)."""
    parentSessionPath: str | None = None
    created: str | None = None
    """Header timestamp (ISO); null when unparsable."""
    modified: str
    """Latest user/assistant message time, else the header time, else the file mtime (ISO)."""
    messageCount: int
    """``message`` entries of any role on every branch."""
    firstMessage: str
    """Text of the first user message, or ``(no messages)``."""
    allMessagesText: str
    """Texts of all user and assistant messages joined by spaces (for search)."""


class _Message(msgspec.Struct):
    role: Any = None
    content: msgspec.Raw = msgspec.Raw()
    """Kept undecoded: only user and assistant content is ever looked at."""
    timestamp: Any = None


class _Block(msgspec.Struct):
    type: Any = None
    text: Any = None


class _Line(msgspec.Struct):
    type: Any = None
    name: Any = None
    timestamp: Any = None
    message: _Message | None = None


HEADER_LIMIT = 1 << 20
"""Bytes within which the session header must appear (pi 1.6.0 scans headers up to 1 MiB)."""
MAX_LINE = 32 << 20
"""Longer lines are skipped while listing (never buffered whole)."""
TEXT_LIMIT = 2 << 20
"""Characters of ``allMessagesText`` (and ``firstMessage``) kept per session."""
CHUNK = 1 << 20

_decode_line = msgspec.json.Decoder(_Line).decode
_decode_content = msgspec.json.Decoder(str | list[_Block]).decode


def _raw_text(raw: msgspec.Raw) -> str:
    """Text of a content value: the string, or its text blocks joined by one space."""
    try:
        content = _decode_content(raw)
    except msgspec.DecodeError:  # odd shapes: fall back to plain JSON
        return content_text(msgspec.json.decode(raw), " ")
    if isinstance(content, str):
        return content
    return " ".join(b.text for b in content if b.type == "text" and isinstance(b.text, str))


@dataclass(slots=True)
class _Scan:
    """What the complete lines of one file have contributed so far."""

    header: Any = None
    messages: int = 0
    first_user: str = ""
    texts: list[str] = field(default_factory=list)
    text_chars: int = 0
    name: str | None = None
    last_activity: int | None = None
    consumed: int = 0
    tail: bytes = b""

    @property
    def hopeless(self) -> bool:
        """True once the file cannot be a session: reading on would be wasted."""
        header = self.header
        if header is None:
            return self.consumed > HEADER_LIMIT
        return not isinstance(header, dict) or header.get("type") != "session"


def _parse(line: bytes) -> _Line | None:
    try:
        return _decode_line(line)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError:
        pass
    try:  # shapes the typed decoder refuses but JSON.parse accepts
        value = loads(line)
    except JsonLineError:
        return None
    if not isinstance(value, dict):
        return _Line() if value is not None else None
    message = value.get("message")
    parsed = _Line(type=value.get("type"), name=value.get("name"), timestamp=value.get("timestamp"))
    if isinstance(message, dict):
        raw = msgspec.Raw(msgspec.json.encode(message.get("content")))
        parsed.message = _Message(
            role=message.get("role"), content=raw, timestamp=message.get("timestamp")
        )
    return parsed


def _feed(scan: _Scan, data: bytes) -> None:
    """Fold complete lines of ``data`` into ``scan``."""
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        parsed = _parse(line)
        if parsed is None:
            continue
        if scan.header is None:
            scan.header = loads(line)
            if scan.hopeless:  # not a session: the rest does not matter
                return
            continue
        kind = parsed.type
        if kind == "session_info":  # the latest wins; an empty one clears (pi 1.6.0)
            name = parsed.name.strip() if isinstance(parsed.name, str) else ""
            scan.name = name or None
        if kind != "message":
            continue
        scan.messages += 1
        message = parsed.message
        if message is None or message.role not in ("user", "assistant") or not message.content:
            continue
        _activity(scan, message.timestamp, parsed.timestamp)
        text = _raw_text(message.content)
        if text:
            if scan.text_chars < TEXT_LIMIT:
                kept = text[: TEXT_LIMIT - scan.text_chars]
                scan.texts.append(kept)
                scan.text_chars += len(kept)
            if not scan.first_user and message.role == "user":
                scan.first_user = text[:TEXT_LIMIT]


def _activity(scan: _Scan, message_ms: Any, entry_iso: Any) -> None:
    if isinstance(message_ms, int | float) and not isinstance(message_ms, bool):
        moment: int | None = int(message_ms)
    elif isinstance(entry_iso, str):
        moment = parse_iso_ms(entry_iso)
    else:
        return
    if moment is not None:
        scan.last_activity = max(scan.last_activity or 0, moment)


def _info(path: Path, scan: _Scan, mtime_ns: int) -> SessionInfo | None:
    header = scan.header
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    created_ms = (
        parse_iso_ms(header["timestamp"]) if isinstance(header.get("timestamp"), str) else None
    )
    if scan.last_activity:
        modified = iso_time(scan.last_activity / 1000)
    elif created_ms is not None:
        modified = iso_time(created_ms / 1000)
    else:
        modified = iso_time(mtime_ns / 1e9)
    cwd = header.get("cwd")
    return SessionInfo.model_construct(
        path=str(path),
        id=header.get("id"),
        cwd=cwd if isinstance(cwd, str) else "",
        name=scan.name,
        parentSessionPath=header.get("parentSession"),
        created=iso_time(created_ms / 1000) if created_ms is not None else None,
        modified=modified,
        messageCount=scan.messages,
        firstMessage=scan.first_user or "(no messages)",
        allMessagesText=" ".join(scan.texts),
    )


def _stream(fd: int, scan: _Scan) -> bytes:
    """Fold the complete lines from ``scan.consumed`` on into ``scan``, one chunk at a time.

    Returns the last line when the file does not end with a newline (b"" otherwise, or when
    that line is too long or the file is not a session).
    """
    offset = scan.consumed
    os.lseek(fd, offset, os.SEEK_SET)
    pending = bytearray()
    skipping = False  # inside a line longer than MAX_LINE
    while not scan.hopeless:
        data = os.read(fd, CHUNK)
        if not data:
            break
        offset += len(data)
        if skipping:
            newline = data.find(b"\n")
            if newline < 0:
                if scan.header is None:
                    scan.consumed = offset  # counts towards HEADER_LIMIT
                continue
            data, skipping = data[newline + 1 :], False
            scan.consumed = offset - len(data)
        newline = data.rfind(b"\n")
        if newline < 0:
            pending += data
            if len(pending) > MAX_LINE:
                pending.clear()
                skipping = True
            continue
        complete = data if newline + 1 == len(data) else data[: newline + 1]
        if pending:
            pending += complete
            complete = bytes(pending)
        _feed(scan, complete)
        scan.consumed = offset - (len(data) - newline - 1)
        pending = bytearray(data[newline + 1 :])
    return b"" if skipping or scan.hopeless else bytes(pending)


class SessionLister:
    """Builds session lists and remembers what it derived, per file (thread-safe)."""

    TAIL = 64

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int, int], _Scan, SessionInfo | None]] = {}
        self._lock = threading.Lock()

    def info(self, path: Path) -> SessionInfo | None:
        """Metadata of one file, or None if it is not a (regular) session file."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):  # a FIFO, a device, a socket: never opened
            return None
        with self._lock:
            cached = self._cache.get(str(path))
            if cached is not None and cached[0] == (st.st_ino, st.st_size, st.st_mtime_ns):
                return cached[2]  # unchanged: not even opened
            try:
                fd = open_regular(path)  # checks again on the descriptor (no race)
            except OSError:
                return None
            try:
                return self._info_of(path, fd, cached)
            except OSError:
                return None
            finally:
                os.close(fd)

    def _info_of(self, path: Path, fd: int, cached: Any) -> SessionInfo | None:
        st = os.fstat(fd)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if cached is not None and cached[0] == key:
            return cast(SessionInfo | None, cached[2])
        scan = self._resume(fd, cached, st.st_ino, st.st_size)
        last = _stream(fd, scan)
        if scan.consumed >= self.TAIL:
            scan.tail = os.pread(fd, self.TAIL, scan.consumed - self.TAIL)
        else:
            scan.tail = os.pread(fd, scan.consumed, 0)
        result_scan = scan
        if last:  # a last line without newline: counted now, re-read next time
            result_scan = replace(scan, texts=list(scan.texts))
            _feed(result_scan, last)
        info = None if result_scan.hopeless else _info(path, result_scan, st.st_mtime_ns)
        self._cache[str(path)] = (key, scan, info)
        return info

    def _resume(self, fd: int, cached: Any, inode: int, size: int) -> _Scan:
        if cached is None:
            return _Scan()
        (old_inode, _, _), scan, _ = cached
        if old_inode != inode or size < scan.consumed or not scan.consumed:
            return _Scan()
        still = os.pread(fd, len(scan.tail), scan.consumed - len(scan.tail))
        return scan if still == scan.tail else _Scan()

    def list_dir(self, directory: Path) -> list[SessionInfo]:
        """Every session file of one folder, newest ``modified`` first."""
        try:
            names = [n for n in os.listdir(directory) if n.endswith(".jsonl")]
        except OSError:
            return []
        enabled = gc.isenabled()
        gc.disable()  # short-lived parse objects only: collections would just cost time
        try:
            infos = [info for n in names if (info := self.info(directory / n)) is not None]
        finally:
            if enabled:
                gc.enable()
        infos.sort(key=lambda i: i.modified, reverse=True)
        return infos

    def list_cwd(
        self, cwd: str, agent: Path | None = None, configured: str | None = None
    ) -> list[SessionInfo]:
        """pi's ``SessionManager.list(cwd, sessionDir)`` (``configured``: the setting).

        In a folder other cwds share, only sessions whose header names ``cwd`` are listed.
        """
        folder = session_dir(cwd, agent, configured)
        infos = self.list_dir(folder)
        if shared_folder(folder, cwd, agent):
            infos = [info for info in infos if same_cwd(info.cwd, cwd)]
        return infos

    def list_all(
        self, agent: Path | None = None, configured: str | None = None
    ) -> list[SessionInfo]:
        """pi's ``listAll(sessionDir)``: the custom folder, else every folder of ``sessions/``.

        The custom folder is the environment variable's or ``configured`` (a relative one is
        taken from the current directory).
        """
        custom = custom_session_dir(os.getcwd(), configured)
        if custom is not None:
            return self.list_dir(custom)
        root = sessions_root(agent)
        try:
            folders = [root / n for n in os.listdir(root) if (root / n).is_dir()]
        except OSError:
            return []
        infos = [info for folder in folders for info in self.list_dir(folder)]
        infos.sort(key=lambda i: i.modified, reverse=True)
        return infos

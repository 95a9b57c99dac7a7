"""Ids, timestamps and file names in pi's formats (spec §1.1, §1.3–1.4)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Container
from datetime import UTC, datetime

IdFactory = Callable[[], str]
"""Returns a fresh random 36-character v4 UUID string; tests inject a deterministic one."""

Clock = Callable[[], float]
"""Returns seconds since the epoch; tests inject a controlled clock."""


def random_uuid() -> str:
    """A fresh v4 UUID, as ``crypto.randomUUID()``."""
    return str(uuid.uuid4())


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

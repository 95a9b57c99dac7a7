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

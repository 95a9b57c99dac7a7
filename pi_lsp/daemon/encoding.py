r"""JSON bytes for editors: msgspec's fast encoder, and a fallback for text that is not Unicode.

Python strings can hold lone UTF-16 surrogates (JSON's ``\ud83d`` escape, which pi's
``JSON.stringify`` writes for half an emoji, decodes to one), and msgspec refuses to encode them.
The standard library writes them back as the same escapes, so such a session still answers
``pi/session/state`` and ``pi/session/tree`` and its events keep their place in the sequence.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode


def encode_json(value: Any) -> bytes:
    """``value`` (JSON-able) as compact JSON bytes."""
    try:
        return _encode(value)
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")

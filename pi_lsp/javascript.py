r"""What JavaScript would write: ``JSON.stringify``, numbers, string order and UTF-16 prefixes.

pi measures and prints values the JavaScript way, and pi_lsp must give the same bytes: a tool
call is sized as ``name.length + JSON.stringify(arguments).length``, transcripts and messages
print numbers as JavaScript does (``1e-7``, ``5`` for ``5.0``), file lists are sorted in UTF-16
code-unit order. Python's ``json`` differs in number formatting (``1e-07`` vs ``1e-7``, ``1.0``
vs ``1``), lone surrogates (raw vs ``\\udXXX``) and the order of integer-like object keys
(JavaScript lists them first). ``String.length`` is :func:`pi_lsp.session.jsonl.js_len`.
Stdlib only, pure: compaction and the tools both use it.
"""

from __future__ import annotations

import json
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_REPR = re.compile(r"(\d+)(?:\.(\d+))?(?:e([+-]\d+))?")
_MAX_INDEX = 2**32 - 2


def js_number(value: float) -> str:
    """``JSON.stringify`` of a number: shortest digits, JavaScript's exponent rules.

    A finite number prints as in a template string too (``${5.0}`` is ``5``); NaN and the
    infinities give JSON's ``null``.
    """
    if value != value or value in (float("inf"), float("-inf")):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    match = _REPR.fullmatch(repr(abs(value)))
    if match is None:  # pragma: no cover - repr of a finite float always matches
        return repr(value)
    whole, fraction, exponent = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    # value = 0.<significant> × 10^point
    point = len(whole) + exponent - (len(all_digits) - len(significant))
    return sign + _place_point(significant.rstrip("0") or "0", point)


def _place_point(digits: str, point: int) -> str:
    """Digits ``d1..dk`` with the value ``0.d1..dk × 10^point``, written as JavaScript does."""
    count = len(digits)
    if count <= point <= 21:
        return digits + "0" * (point - count)
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    mantissa = digits[0] + (f".{digits[1:]}" if count > 1 else "")
    exponent = point - 1
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _js_string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if quoted.isascii() else _LONE_SURROGATE.sub(_escape_surrogate, quoted)


def _js_keys(obj: dict[str, Any]) -> list[str]:
    """Object keys in JavaScript's enumeration order: array indices ascending, then the rest."""
    keys = list(obj)
    indices = [k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not indices:
        return keys
    rest = [k for k in keys if k not in set(indices)]
    return sorted(indices, key=int) + rest


_FLAT = frozenset({str, int, bool, type(None)})
"""Value types Python's C encoder writes exactly as JavaScript does (floats differ)."""


def _flat_json(obj: dict[str, Any]) -> str | None:
    """Fast path for the usual tool arguments: one object of strings, ints, booleans, nulls."""
    if any(type(v) not in _FLAT for v in obj.values()) or any(k[:1].isdigit() for k in obj):
        return None
    out = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return out if out.isascii() else _LONE_SURROGATE.sub(_escape_surrogate, out)


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def js_stringify(value: Any) -> str:
    """Compact JSON exactly as ``JSON.stringify`` writes it for parsed JSON values."""
    if type(value) is dict:
        flat = _flat_json(value)
        if flat is not None:
            return flat
    if isinstance(value, str):
        return _js_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{_js_string(k)}:{js_stringify(value[k])}" for k in _js_keys(value))
            + "}"
        )
    return "null"


def js_object_items(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    """``Object.entries(obj)``: key/value pairs in JavaScript's order."""
    return [(key, obj[key]) for key in _js_keys(obj)]


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` of at most ``units`` UTF-16 code units.

    Unlike JavaScript's ``slice``, a surrogate pair that would be cut in half is left out
    entirely, so the result is always well-formed text.
    """
    if text.isascii():
        return text[:units]
    taken = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if taken + width > units:
            return text[:index]
        taken += width
    return text


def utf16_key(text: str) -> bytes:
    """Sort key giving JavaScript's default string order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")

"""Image type detection for ``read``: JPEG, PNG, GIF and WebP, by content, never by file name.

pi sniffs the first 4100 bytes with the ``file-type`` package and accepts only these four types;
JPEG-LS and animated PNG are other types there and so are read as text, as here. Pure.
"""

from __future__ import annotations

SNIFF_BYTES = 4100
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def detect_image_mime(head: bytes) -> str | None:
    """``image/jpeg|png|gif|webp`` for a supported image's leading bytes, else None."""
    if head.startswith(b"\xff\xd8\xff"):
        return None if head[3:4] == b"\xf7" else "image/jpeg"
    if head.startswith(_PNG_SIGNATURE):
        return None if _is_animated_png(head) else "image/png"
    if head.startswith(b"GIF"):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _is_animated_png(head: bytes) -> bool:
    """An ``acTL`` chunk before the first ``IDAT`` marks an APNG."""
    offset = len(_PNG_SIGNATURE)
    while offset + 8 <= len(head):
        length = int.from_bytes(head[offset : offset + 4], "big")
        kind = head[offset + 4 : offset + 8]
        if kind == b"acTL":
            return True
        if kind == b"IDAT":
            return False
        offset += 12 + length
    return False

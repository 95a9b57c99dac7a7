"""The tools that read, write and list files through the session's file system: read, write, ls.

``read`` splits text on newlines, cuts it from the head at 2000 lines or 50 KB (never mid-line)
and follows it by a notice telling the model which ``offset`` continues. Images (JPEG, PNG, GIF
and WebP) are detected by content, never by file name, as pi's ``file-type`` sniffing of the
first 4100 bytes does (JPEG-LS and animated PNG are other types there and so are read as text,
as here), and returned as a note plus an image block. pi shrinks large images with a WebAssembly
library; no image library is a dependency here, so images pass through at their original size,
exactly what pi does when its resizer is unavailable.

``write`` creates or overwrites a file, parents created. Its success text counts the content
the way pi does, in UTF-16 code units (JavaScript's ``String.length``), although it says
"bytes": sessions written by either program then agree.

``ls`` lists one directory, dotfiles included, sorted without regard to case; directories get a
``/`` suffix; entries that cannot be stat'ed (dangling links) are skipped. pi sorts with
``localeCompare`` on lower-cased names; here lower-cased code-point order is used, which agrees
for ordinary ASCII names and can differ for punctuation and accents.
"""

from __future__ import annotations

import base64
import os

from pydantic import Field

from pi_lsp.session.jsonl import js_len
from pi_lsp.tools.base import (
    ToolError,
    ToolInvocation,
    ToolParams,
    ToolResult,
    read_path_variants,
    text_block,
)
from pi_lsp.tools.fs import FileTool, file_error_message, node_error_message
from pi_lsp.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    limit_note,
    limits_text,
    listing_result,
    truncate_head,
    utf8_len,
)

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""The largest image sent (base64, it is stored in the session and resent every turn; pi
shrinks images instead, which needs an image library)."""
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


class ReadParams(ToolParams):
    """Arguments of ``read``."""

    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(
        default=None, description="Line number to start reading from (1-indexed)"
    )
    limit: int | None = Field(default=None, description="Maximum number of lines to read")


class ReadTool(FileTool[ReadParams]):
    """pi's ``read``."""

    name = "read"
    summary = "Read file contents"
    description = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
        "Images are sent as attachments. For text files, output is truncated to "
        f"{limits_text(f'{DEFAULT_MAX_LINES} lines')}."
        " Use offset/limit for large files. When you need the full file, continue with offset"
        " until complete."
    )
    params_model = ReadParams

    async def run(self, params: ReadParams, call: ToolInvocation) -> ToolResult:
        """Read the file as an image or as text."""
        call.check()
        absolute = await self._resolve_existing(params.path)
        data = await self._read(absolute)
        call.check()
        mime = detect_image_mime(data[:SNIFF_BYTES])
        if mime is not None:
            if len(data) > MAX_IMAGE_BYTES:
                raise ToolError(
                    f"Cannot read {absolute}: the image is {format_size(len(data))}, more than"
                    f" the {format_size(MAX_IMAGE_BYTES)} an image may have."
                )
            encoded = base64.b64encode(data).decode("ascii")
            return ToolResult(
                content=[
                    text_block(f"Read image file [{mime}]"),
                    {"type": "image", "data": encoded, "mimeType": mime},
                ]
            )
        text = data.decode("utf-8", "replace")
        return format_text(text, path=params.path, offset=params.offset, limit=params.limit)

    async def _resolve_existing(self, path: str) -> str:
        """The path made absolute, or the first macOS spelling of it that exists; else as is."""
        resolved = self.resolve(path)
        if await self.fs.exists(resolved):
            return resolved
        for variant in read_path_variants(resolved):
            if await self.fs.exists(variant):
                return variant
        return resolved

    async def _read(self, absolute: str) -> bytes:
        try:
            return await self.fs.read_bytes(absolute)
        except IsADirectoryError as exc:
            raise ToolError(node_error_message(exc, "read")) from None
        except (FileNotFoundError, PermissionError) as exc:
            raise ToolError(node_error_message(exc, "access", absolute)) from None
        except OSError as exc:
            raise ToolError(file_error_message(exc, "open", absolute)) from None


def format_text(text: str, *, path: str, offset: int | None, limit: int | None) -> ToolResult:
    """The text result for a file's content, with pi's truncation and continuation notices."""
    lines = text.split("\n")
    total = len(lines)
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    user_limited: int | None = None
    if limit is not None:
        end = min(start + limit, total)
        selected = "\n".join(lines[start:end])
        user_limited = end - start
    else:
        selected = "\n".join(lines[start:])
    truncation = truncate_head(selected)
    first = start + 1
    if truncation.first_line_exceeds_limit:
        size = format_size(utf8_len(lines[start]))
        limit_text = format_size(DEFAULT_MAX_BYTES)
        notice = (
            f"[Line {first} is {size}, exceeds {limit_text} limit. Use bash: "
            f"sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return ToolResult.of_text(notice, {"truncation": truncation.to_details()})
    if truncation.truncated:
        last = first + truncation.output_lines - 1
        size_note = ""
        if truncation.truncated_by == "bytes":
            size_note = f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        notice = (
            f"[Showing lines {first}-{last} of {total}{size_note}. "
            f"Use offset={last + 1} to continue.]"
        )
        return ToolResult.of_text(
            f"{truncation.content}\n\n{notice}", {"truncation": truncation.to_details()}
        )
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        notice = (
            f"[{remaining} more lines in file. Use offset={start + user_limited + 1} to continue.]"
        )
        return ToolResult.of_text(f"{truncation.content}\n\n{notice}")
    return ToolResult.of_text(truncation.content)


class WriteParams(ToolParams):
    """Arguments of ``write``."""

    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class WriteTool(FileTool[WriteParams]):
    """pi's ``write``."""

    name = "write"
    summary = "Create or overwrite files"
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does."
        " Automatically creates parent directories."
    )
    params_model = WriteParams

    async def run(self, params: WriteParams, call: ToolInvocation) -> ToolResult:
        """Create the parent directories, then write the file."""
        call.check()
        absolute = self.resolve(params.path)
        parent = os.path.dirname(absolute)
        with self.os_errors("mkdir", parent):
            await self.fs.mkdir(parent)
        call.check()
        with self.os_errors("open", absolute, "write"):
            await self.fs.write_text(absolute, params.content)
        return ToolResult.of_text(
            f"Successfully wrote {js_len(params.content)} bytes to {params.path}"
        )


LS_LIMIT = 500


class LsParams(ToolParams):
    """Arguments of ``ls``."""

    path: str | None = Field(
        default=None, description="Directory to list (default: current directory)"
    )
    limit: int | None = Field(
        default=None, description="Maximum number of entries to return (default: 500)"
    )


class LsTool(FileTool[LsParams]):
    """pi's ``ls``."""

    name = "ls"
    summary = "List directory contents"
    description = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
        "directories. Includes dotfiles. Output is truncated to "
        f"{limits_text(f'{LS_LIMIT} entries')}."
    )
    params_model = LsParams

    async def run(self, params: LsParams, call: ToolInvocation) -> ToolResult:
        """List, sort, mark directories, apply the entry and byte limits."""
        call.check()
        directory = self.resolve(params.path or ".")
        limit = params.limit if params.limit is not None else LS_LIMIT
        names = await self._names(directory)
        names.sort(key=str.lower)
        entries: list[str] = []
        limit_reached = False
        for name in names:
            if len(entries) >= limit:
                limit_reached = True
                break
            try:
                kind = (await self.fs.stat(os.path.join(directory, name))).kind
            except OSError:
                continue
            entries.append(name + "/" if kind == "directory" else name)
        call.check()
        if not entries:
            return ToolResult.of_text("(empty directory)")
        notes = [limit_note(limit, "entries", "entryLimitReached", "")] if limit_reached else []
        return listing_result(entries, notes, [])

    async def _names(self, directory: str) -> list[str]:
        if not await self.fs.exists(directory):
            raise ToolError(f"Path not found: {directory}")
        with self.os_errors("stat", directory):
            kind = (await self.fs.stat(directory)).kind
        if kind != "directory":
            raise ToolError(f"Not a directory: {directory}")
        with self.os_errors("scandir", directory, prefix="Cannot read directory: "):
            return await self.fs.list_dir(directory)

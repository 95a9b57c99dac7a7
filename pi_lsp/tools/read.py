"""The ``read`` tool: a text file's lines with pi's offset/limit notices, or an image attachment.

Text is split on newlines, cut from the head at 2000 lines or 50 KB (never mid-line) and followed
by a notice telling the model which ``offset`` continues. Images are detected by content and
returned as a note plus an image block. pi shrinks large images with a WebAssembly library; no
image library is a dependency here, so images pass through at their original size, exactly what
pi does when its resizer is unavailable.
"""

from __future__ import annotations

import asyncio
import base64

from pydantic import Field

from pi_lsp.tools.base import Tool, ToolResult, UpdateCallback, raise_if_aborted, text_block
from pi_lsp.tools.errors import ToolError, file_error_message, node_error_message
from pi_lsp.tools.fs import FileSystem
from pi_lsp.tools.images import SNIFF_BYTES, detect_image_mime
from pi_lsp.tools.params import ToolParams
from pi_lsp.tools.paths import resolve_read_path
from pi_lsp.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    utf8_len,
)

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""The largest image sent (base64, it is stored in the session and resent every turn; pi
shrinks images instead, which needs an image library)."""


class ReadParams(ToolParams):
    """Arguments of ``read``."""

    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(
        default=None, description="Line number to start reading from (1-indexed)"
    )
    limit: int | None = Field(default=None, description="Maximum number of lines to read")


class ReadTool(Tool[ReadParams]):
    """pi's ``read``."""

    name = "read"
    summary = "Read file contents"
    params_model = ReadParams

    def __init__(self, cwd: str, fs: FileSystem) -> None:
        super().__init__(cwd)
        self.fs = fs

    @property
    def description(self) -> str:
        """pi's description of ``read``."""
        return (
            "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
            "Images are sent as attachments. For text files, output is truncated to "
            f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
            " Use offset/limit for large files. When you need the full file, continue with offset"
            " until complete."
        )

    async def run(
        self,
        params: ReadParams,
        *,
        cancel: asyncio.Event | None = None,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        """Read the file as an image or as text."""
        raise_if_aborted(cancel)
        absolute = await resolve_read_path(params.path, self.cwd, self.fs)
        data = await self._read(absolute)
        raise_if_aborted(cancel)
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

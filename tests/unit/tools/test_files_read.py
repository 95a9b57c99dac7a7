from __future__ import annotations

import base64
import struct
import zlib

import pytest

from pi_lsp.tools import ToolError
from tests.unit.tools.conftest import Workspace


def numbered(count: int, *, width: int = 0) -> str:
    return "\n".join(f"line {i}".ljust(width) for i in range(1, count + 1))


async def test_small_file_is_returned_whole(ws: Workspace) -> None:
    ws.write("a.txt", "one\ntwo\n")
    result = await ws.run("read", {"path": "a.txt"})
    assert result.content == [{"type": "text", "text": "one\ntwo\n"}]
    assert result.details is None


async def test_limit_stops_early_with_the_more_lines_notice(ws: Workspace) -> None:
    ws.write("a.txt", numbered(10))
    result = await ws.run("read", {"path": "a.txt", "offset": 3, "limit": 2})
    assert result.text == "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    assert result.details is None


async def test_limit_to_the_end_has_no_notice(ws: Workspace) -> None:
    ws.write("a.txt", numbered(5))
    result = await ws.run("read", {"path": "a.txt", "offset": 4, "limit": 10})
    assert result.text == "line 4\nline 5"


async def test_two_thousand_line_cut(ws: Workspace) -> None:
    ws.write("big.txt", numbered(2500))
    result = await ws.run("read", {"path": "big.txt"})
    body, notice = result.text.rsplit("\n\n", 1)
    assert body.split("\n")[-1] == "line 2000"
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    assert result.details is not None
    truncation = result.details["truncation"]
    assert truncation["truncatedBy"] == "lines"
    assert (truncation["totalLines"], truncation["outputLines"]) == (2500, 2000)


async def test_offset_continues_with_absolute_line_numbers(ws: Workspace) -> None:
    ws.write("big.txt", numbered(2500))
    result = await ws.run("read", {"path": "big.txt", "offset": 2001})
    assert result.text.startswith("line 2001\n")
    assert result.text.endswith("line 2500")


async def test_fifty_kb_cut(ws: Workspace) -> None:
    ws.write("wide.txt", numbered(1000, width=99))  # 100 bytes per line with newline
    result = await ws.run("read", {"path": "wide.txt", "offset": 11})
    body, notice = result.text.rsplit("\n\n", 1)
    assert notice == "[Showing lines 11-522 of 1000 (50.0KB limit). Use offset=523 to continue.]"
    assert body.split("\n")[0].startswith("line 11 ")
    assert result.details is not None
    assert result.details["truncation"]["truncatedBy"] == "bytes"


async def test_first_line_over_the_limit_points_to_bash(ws: Workspace) -> None:
    ws.write("min.js", "a" * 60000 + "\nb\n")
    result = await ws.run("read", {"path": "@min.js"})
    assert result.text == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' @min.js | head -c 51200]"
    )
    assert result.details is not None
    assert result.details["truncation"]["firstLineExceedsLimit"] is True


async def test_offset_beyond_end(ws: Workspace) -> None:
    ws.write("a.txt", "x\ny\n")
    with pytest.raises(ToolError) as error:
        await ws.run("read", {"path": "a.txt", "offset": 4})
    assert str(error.value) == "Offset 4 is beyond end of file (3 lines total)"


async def test_missing_file_reads_like_node(ws: Workspace) -> None:
    with pytest.raises(ToolError) as error:
        await ws.run("read", {"path": "nope.txt"})
    assert str(error.value) == (
        f"ENOENT: no such file or directory, access '{ws.root / 'nope.txt'}'"
    )


async def test_directory(ws: Workspace) -> None:
    (ws.root / "dir").mkdir()
    with pytest.raises(ToolError) as error:
        await ws.run("read", {"path": "dir"})
    assert str(error.value) == "EISDIR: illegal operation on a directory, read"


async def test_crlf_and_bom_are_shown_as_they_are(ws: Workspace) -> None:
    ws.write("w.txt", "\ufeffa\r\nb")
    result = await ws.run("read", {"path": "w.txt"})
    assert result.text == "\ufeffa\r\nb"


async def test_macos_screenshot_name_fallback(ws: Workspace) -> None:
    ws.write("Screenshot 2024-01-01 at 10.00.00\u202fAM.txt", "shot")
    result = await ws.run("read", {"path": "Screenshot 2024-01-01 at 10.00.00 AM.txt"})
    assert result.text == "shot"


async def test_curly_quote_fallback(ws: Workspace) -> None:
    ws.write("Capture d\u2019e\u0301cran.txt", "fr")
    result = await ws.run("read", {"path": "Capture d'écran.txt"})
    assert result.text == "fr"


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" + b"\0\0\0" * width)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_png_by_content_not_name(ws: Workspace) -> None:
    data = png(1, 1)
    ws.write("picture.dat", data)
    result = await ws.run("read", {"path": "picture.dat"})
    assert result.content == [
        {"type": "text", "text": "Read image file [image/png]"},
        {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": "image/png"},
    ]
    assert result.details is None


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0rest", "image/jpeg"),
        (b"GIF89a....", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
async def test_other_image_types(ws: Workspace, head: bytes, mime: str) -> None:
    ws.write("img.bin", head)
    result = await ws.run("read", {"path": "img.bin"})
    assert result.content[0] == {"type": "text", "text": f"Read image file [{mime}]"}
    assert result.content[1]["type"] == "image"


async def test_jpeg_ls_and_apng_are_not_images(ws: Workspace) -> None:
    ws.write("a.jls", b"\xff\xd8\xff\xf7abc")
    result = await ws.run("read", {"path": "a.jls"})
    assert [block["type"] for block in result.content] == ["text"]
    actl = struct.pack(">I", 8) + b"acTL" + b"\0" * 12
    ws.write("a.png", png(1, 1)[:33] + actl)
    result = await ws.run("read", {"path": "a.png"})
    assert [block["type"] for block in result.content] == ["text"]


async def test_invalid_arguments(ws: Workspace) -> None:
    with pytest.raises(ToolError) as error:
        await ws.run("read", {"path": ["a"], "limit": "many"})
    assert str(error.value) == (
        'Validation failed for tool "read":\n'
        "  - path: must be string\n"
        "  - limit: must be integer\n\n"
        'Received arguments:\n{\n  "path": [\n    "a"\n  ],\n  "limit": "many"\n}'
    )


async def test_numbers_as_strings_are_coerced(ws: Workspace) -> None:
    ws.write("a.txt", numbered(3))
    result = await ws.run("read", {"path": "a.txt", "offset": "2", "limit": "1"})
    assert result.text.startswith("line 2\n\n[1 more lines")

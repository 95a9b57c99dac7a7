"""The tolerant session-file reader (spec §1.6, decision D2).

It accepts everything pi's loader accepts (blank and malformed lines, a torn last line, duplicate
headers and ids, orphans) and reports each problem as a :class:`Diagnostic`. Where pi would
overwrite a file it cannot use, this reader raises :class:`SessionFileError` and touches nothing.
Reading never writes: migrations happen in memory and the store rewrites the file later.

The migrations are here too, in order (spec §1.7; pure: lists in, lists out). v1 -> v2: every
entry gets a fresh id and the previous entry as parent (one linear chain), and a compaction's
``firstKeptEntryIndex`` (an index into the parsed lines, header at 0) becomes
``firstKeptEntryId``. v2 -> v3: message role ``hookMessage`` becomes ``custom``. What the reader
found is a :class:`LoadedFile`.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from sys import intern
from typing import Any

import msgspec

from pi_lsp.safety import NotRegularFileError, open_regular
from pi_lsp.session.entries import SessionHeader, as_header
from pi_lsp.session.jsonl import (
    Diagnostic,
    DiagnosticList,
    JsonLineError,
    JsonObject,
    Record,
    SessionFileError,
    decode_index,
    dumps,
    load_index,
    loads,
)
from pi_lsp.session.paths import IdFactory, new_entry_id, random_uuid

_BOM = b"\xef\xbb\xbf"

_NOT_AN_OBJECT = JsonLineError("not a JSON object")


@dataclass(slots=True)
class LoadedFile:
    """What the reader found in a file."""

    path: Path
    header: SessionHeader | None
    """None for an empty (or missing) file: a new session that will be written there."""
    records: list[Record]
    diagnostics: list[Diagnostic] = field(default_factory=DiagnosticList)
    from_version: int = 3
    """Version on disk; below 3 the records were migrated in memory."""
    size: int = 0
    """Bytes of the file that were read."""
    lines: int = 0
    """Newline characters in what was read (physical lines)."""
    needs_newline: bool = False
    """The file does not end with a newline: the next append must start a fresh line."""
    prefix: bytes = b""
    """The file's bytes up to the end of the header line (what must not change under us)."""

    @property
    def migrated(self) -> bool:
        """True when the file on disk is older than the records in memory."""
        return self.from_version < 3 and self.header is not None


def read_session_file(path: str | Path, *, uuids: IdFactory = random_uuid) -> LoadedFile:
    """Read and index a session file; a missing or empty file is a new, headerless session."""
    path = Path(path)
    try:
        fd = open_regular(path)  # a FIFO or a device is refused, never waited on
    except FileNotFoundError:
        return LoadedFile(path=path, header=None, records=[])
    except IsADirectoryError:
        raise SessionFileError(path, 0, "is a directory, not a session file; not read") from None
    except NotRegularFileError:  # a FIFO, a device, a socket
        raise SessionFileError(
            path, 0, "is not a regular file, not a session file; not read"
        ) from None
    except OSError as exc:
        raise SessionFileError(path, 0, f"cannot read: {exc.strerror or exc}") from None
    try:
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError as exc:
        raise SessionFileError(path, 0, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return parse_session_bytes(data, path, uuids=uuids)


def parse_session_bytes(data: bytes, path: Path, *, uuids: IdFactory = random_uuid) -> LoadedFile:
    """Index the lines of ``data`` (a whole file) as pi's loader would."""
    where = str(path)
    body = data[3:] if data.startswith(_BOM) else data  # JS trim() drops a leading BOM
    lines = body.split(b"\n")
    torn_at = len(lines) if data.endswith(b"\n") else len(lines) - 1
    diagnostics = DiagnosticList(where)
    header, start = _find_header(lines, where, torn_at, diagnostics)
    if header is None:
        if data.strip(b" \t\r\n" + _BOM):
            raise SessionFileError(path, 0, "no valid session header found; file left untouched")
        return LoadedFile(path=path, header=None, records=[], size=len(data), lines=len(lines) - 1)
    from_version = file_version(header)
    if from_version < 3:
        objects, numbers = _parse_objects(lines, start, where, torn_at, diagnostics)
        migrate(header, objects, uuids)
        records = [
            Record.from_value(obj, dumps(obj), number)
            for obj, number in zip(objects, numbers, strict=True)
            if obj.get("type") != "session"
        ]
    else:
        from_version = 3
        records = _index_lines(lines, start, where, torn_at, diagnostics, b"\r" in body)
    header_end = len(data) - len(body) + sum(len(line) + 1 for line in lines[:start])
    return LoadedFile(
        path=path,
        header=header,
        records=records,
        diagnostics=diagnostics,
        from_version=from_version,
        size=len(data),
        lines=len(lines) - 1,
        needs_newline=bool(data) and not data.endswith(b"\n"),
        prefix=data[: min(header_end, len(data))],
    )


def _malformed(where: str, index: int, torn_at: int, exc: Exception) -> Diagnostic:
    torn = index >= torn_at
    reason = "incomplete last line (torn write), skipped" if torn else "malformed JSON"
    return Diagnostic(where, index + 1, f"{reason}: {exc}")


def _parsed_lines(
    lines: list[bytes], start: int, where: str, torn_at: int, diagnostics: list[Diagnostic]
) -> Iterator[tuple[int, Any]]:
    """Each non-blank line from ``start`` on that parses, fully, with its index (slow path).

    A line that does not parse is reported and skipped. The version-3 hot loop,
    :func:`_index_lines`, does not come here: it decodes only the index fields.
    """
    for index in range(start, len(lines)):
        line = lines[index]
        if not line or line.isspace():
            continue
        try:
            value = loads(line)
        except JsonLineError as exc:
            diagnostics.append(_malformed(where, index, torn_at, exc))
            continue
        yield index, value


def _find_header(
    lines: list[bytes], where: str, torn_at: int, diagnostics: list[Diagnostic]
) -> tuple[SessionHeader | None, int]:
    """The first parsable line, which must be a header; returns it and the next line index."""
    for index, value in _parsed_lines(lines, 0, where, torn_at, diagnostics):
        header = as_header(value)
        if header is None:
            raise SessionFileError(
                where, index + 1, "first valid line is not a session header; file left untouched"
            )
        return header, index + 1
    return None, len(lines)


def _index_lines(
    lines: list[bytes],
    start: int,
    where: str,
    torn_at: int,
    diagnostics: list[Diagnostic],
    crlf: bool = True,
) -> list[Record]:
    """Records for version-3 lines; the hot loop of every open, kept lean on purpose.

    Blank lines are noticed only when the decode fails (they never decode), and ``crlf=False``
    (no carriage return anywhere in the data) skips looking for one before each newline.
    """
    records: list[Record] = []
    append = records.append
    decode = decode_index
    number = start  # the 1-based number of the line in hand
    for line in islice(lines, start, None):  # no copy of the list: RSS stays as it was
        number += 1
        parsed = None
        try:
            fields = decode(line)
        except msgspec.DecodeError:
            if not line or line.isspace():
                continue
            if line.lstrip()[:1] != b"{":  # never an entry: no need for the slow, exact parse
                diagnostics.append(_malformed(where, number - 1, torn_at, _NOT_AN_OBJECT))
                continue
            try:
                fields, parsed = load_index(line)
            except JsonLineError as exc:
                diagnostics.append(_malformed(where, number - 1, torn_at, exc))
                continue
        kind = fields.type
        if kind == "session":
            diagnostics.append(Diagnostic(where, number, "duplicate session header ignored"))
            continue
        if fields.id is None:
            diagnostics.append(Diagnostic(where, number, "entry without a string id skipped"))
            continue
        if crlf and line[-1:] == b"\r":
            line = line[:-1]
        message = fields.message
        role = message.role if message is not None else None
        append(
            Record(
                fields.id,
                fields.parentId,
                intern(kind) if kind else "",  # a few distinct values, millions of uses
                fields.timestamp or "",
                line,
                parsed,
                number,
                intern(role) if role else role,
            )
        )
    return records


def _parse_objects(
    lines: list[bytes], start: int, where: str, torn_at: int, diagnostics: list[Diagnostic]
) -> tuple[list[JsonObject], list[int]]:
    """Every parsable object after the header, with line numbers (old files, for migrations)."""
    objects: list[JsonObject] = []
    numbers: list[int] = []
    for index, value in _parsed_lines(lines, start, where, torn_at, diagnostics):
        if not isinstance(value, dict):
            diagnostics.append(Diagnostic(where, index + 1, "malformed JSON: not an object"))
            continue
        if value.get("type") == "session":
            diagnostics.append(Diagnostic(where, index + 1, "duplicate session header ignored"))
        objects.append(value)
        numbers.append(index + 1)
    return objects, numbers


def parse_appended(
    data: bytes, path: Path, first_line: int
) -> tuple[list[Record], list[Diagnostic]]:
    """Index lines another process appended after the part already read.

    ``first_line`` is the physical line number of the first line in ``data``. A header among them
    is ignored as a duplicate; a final line without newline that does not parse is a torn write.
    """
    lines = data.split(b"\n")
    torn_at = len(lines) if data.endswith(b"\n") else len(lines) - 1
    diagnostics = DiagnosticList(str(path), offset=first_line - 1)
    records = _index_lines(lines, 0, str(path), torn_at, diagnostics, b"\r" in data)
    for record in records:
        record.line += first_line - 1
    return records, diagnostics


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (loading makes many objects and no cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def file_version(header: Mapping[str, object]) -> int:
    """Version a header declares; 1 when it declares none."""
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def migrate_v1_to_v2(objects: list[JsonObject], uuids: IdFactory = random_uuid) -> None:
    """Assign ids and a linear parent chain in file order (mutates ``objects``).

    ``objects`` are the parsed lines after the header; a compaction's ``firstKeptEntryIndex``
    counts lines as pi indexes them, the header being line 0.
    """
    used: set[str] = set()
    previous: str | None = None
    for obj in objects:
        if obj.get("type") == "session":
            continue  # a duplicate header: dropped from the records
        entry_id = new_entry_id(used, uuids)
        used.add(entry_id)
        obj["id"] = entry_id
        obj["parentId"] = previous
        previous = entry_id
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            index = obj.pop("firstKeptEntryIndex")
            if isinstance(index, int) and 0 < index <= len(objects):
                target = objects[index - 1]
                if target.get("type") != "session" and isinstance(target.get("id"), str):
                    obj["firstKeptEntryId"] = target["id"]


def migrate_v2_to_v3(objects: list[JsonObject]) -> None:
    """Rename the legacy message role ``hookMessage`` to ``custom`` (mutates ``objects``)."""
    for obj in objects:
        message = obj.get("message")
        if obj.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") == "hookMessage":
            message["role"] = "custom"


def migrate(
    header: SessionHeader, objects: list[JsonObject], uuids: IdFactory = random_uuid
) -> int:
    """Bring a header and the parsed lines after it to version 3; returns the version found."""
    version = file_version(header)
    if version < 2:
        migrate_v1_to_v2(objects, uuids)
    if version < 3:
        migrate_v2_to_v3(objects)
        header["version"] = 3
    return version

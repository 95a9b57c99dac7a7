"""The tolerant session-file reader (spec §1.6, decision D2).

It accepts everything pi's loader accepts (blank and malformed lines, a torn last line, duplicate
headers and ids, orphans) and reports each problem as a :class:`Diagnostic`. Where pi would
overwrite a file it cannot use, this reader raises :class:`SessionFileError` and touches nothing.
Reading never writes: migrations happen in memory and the store rewrites the file later.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_lsp.session.ids import IdFactory, random_uuid
from pi_lsp.session.jsonl import JsonLineError, JsonObject, dumps, load_index, loads
from pi_lsp.session.migrate import file_version, migrate
from pi_lsp.session.records import Diagnostic, LoadedFile, Record, SessionFileError

_BOM = b"\xef\xbb\xbf"


def read_session_file(path: str | Path, *, uuids: IdFactory = random_uuid) -> LoadedFile:
    """Read and index a session file; a missing or empty file is a new, headerless session."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return LoadedFile(path=path, header=None, records=[])
    except IsADirectoryError:
        raise SessionFileError(path, 0, "is a directory, not a session file") from None
    except OSError as exc:
        raise SessionFileError(path, 0, f"cannot read: {exc.strerror or exc}") from None
    return parse_session_bytes(data, path, uuids=uuids)


def parse_session_bytes(data: bytes, path: Path, *, uuids: IdFactory = random_uuid) -> LoadedFile:
    """Index the lines of ``data`` (a whole file) as pi's loader would."""
    diagnostics: list[Diagnostic] = []
    where = str(path)
    header: JsonObject | None = None
    records: list[Record] = []
    legacy: list[JsonObject] | None = None  # all parsed objects, for migrations
    legacy_lines: list[int] = []
    body = data[3:] if data.startswith(_BOM) else data  # JS trim() drops a leading BOM
    lines = body.split(b"\n")
    last = len(lines) - 1
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            fields, parsed = load_index(line)
        except JsonLineError as exc:
            torn = number - 1 == last and not data.endswith(b"\n")
            reason = "incomplete last line (torn write), skipped" if torn else "malformed JSON"
            diagnostics.append(Diagnostic(where, number, f"{reason}: {exc}"))
            continue
        if header is None:
            header = parsed if parsed is not None else loads(line)
            if fields.type != "session" or not isinstance(header.get("id"), str):
                raise SessionFileError(
                    path, number, "first valid line is not a session header; file left untouched"
                )
            if file_version(header) < 3:
                legacy, legacy_lines = [header], [number]
            continue
        if fields.type == "session":
            diagnostics.append(Diagnostic(where, number, "duplicate session header ignored"))
            if legacy is not None:
                legacy.append(parsed if parsed is not None else loads(line))
                legacy_lines.append(number)
            continue
        if legacy is not None:
            legacy.append(parsed if parsed is not None else loads(line))
            legacy_lines.append(number)
            continue
        if fields.id is None:
            diagnostics.append(Diagnostic(where, number, "entry without a string id skipped"))
            continue
        records.append(
            Record(
                id=fields.id,
                parent_id=fields.parentId,
                type=fields.type or "",
                timestamp=fields.timestamp or "",
                raw=line.rstrip(b"\r"),
                value=parsed,
                line=number,
            )
        )
    if header is None:
        if data.strip(b" \t\r\n" + _BOM):
            raise SessionFileError(path, 0, "no valid session header found; file left untouched")
        return LoadedFile(
            path=path, header=None, records=[], size=len(data), lines=data.count(b"\n")
        )
    from_version = 3
    if legacy is not None:
        from_version = migrate(legacy, uuids)
        records = _records_from_objects(legacy, legacy_lines)
    diagnostics.extend(check_links(records, where))
    return LoadedFile(
        path=path,
        header=header,
        records=records,
        diagnostics=diagnostics,
        from_version=from_version,
        size=len(data),
        lines=data.count(b"\n"),
        needs_newline=bool(data) and not data.endswith(b"\n"),
    )


def parse_appended(
    data: bytes, path: Path, first_line: int
) -> tuple[list[Record], list[Diagnostic]]:
    """Index lines another process appended after the part already read.

    ``first_line`` is the physical line number of the first line in ``data``. A header among them
    is ignored as a duplicate; a final line without newline that does not parse is a torn write.
    """
    where = str(path)
    records: list[Record] = []
    diagnostics: list[Diagnostic] = []
    lines = data.split(b"\n")
    for offset, line in enumerate(lines):
        number = first_line + offset
        if not line.strip():
            continue
        try:
            fields, parsed = load_index(line)
        except JsonLineError as exc:
            torn = offset == len(lines) - 1
            reason = "incomplete last line (torn write), skipped" if torn else "malformed JSON"
            diagnostics.append(Diagnostic(where, number, f"{reason}: {exc}"))
            continue
        if fields.type == "session":
            diagnostics.append(Diagnostic(where, number, "duplicate session header ignored"))
        elif fields.id is None:
            diagnostics.append(Diagnostic(where, number, "entry without a string id skipped"))
        else:
            records.append(
                Record(
                    id=fields.id,
                    parent_id=fields.parentId,
                    type=fields.type or "",
                    timestamp=fields.timestamp or "",
                    raw=line.rstrip(b"\r"),
                    value=parsed,
                    line=number,
                )
            )
    diagnostics.extend(d for d in check_links(records, where) if "orphan" not in d.reason)
    return records, diagnostics


def _records_from_objects(objects: list[JsonObject], lines: list[int]) -> list[Record]:
    records = []
    for obj, line in zip(objects, lines, strict=True):
        if obj.get("type") == "session":
            continue
        records.append(
            Record(
                id=str(obj.get("id")),
                parent_id=obj.get("parentId"),
                type=str(obj.get("type", "")),
                timestamp=str(obj.get("timestamp", "")),
                raw=dumps(obj),
                value=obj,
                line=line,
            )
        )
    return records


def check_links(records: list[Record], where: str) -> list[Diagnostic]:
    """Report duplicate ids, self-parented entries and orphans (all kept, as pi keeps them)."""
    found: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for record in records:
        if record.id in seen:
            found.append(
                Diagnostic(
                    where,
                    record.line,
                    f"duplicate id {record.id} (replaces line {seen[record.id]} in the index)",
                )
            )
        seen[record.id] = record.line
    for record in records:
        parent = record.parent_id
        if parent is None:
            continue
        if parent == record.id:
            found.append(Diagnostic(where, record.line, f"entry {record.id} is its own parent"))
        elif parent not in seen:
            found.append(
                Diagnostic(where, record.line, f"orphan entry {record.id}: parent {parent} missing")
            )
    return found


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a path, or None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)

"""Ordered migrations of old session files to version 3 (spec §1.7). Pure: lists in, lists out.

v1 -> v2: every entry gets a fresh id and the previous entry as parent (one linear chain), and a
compaction's ``firstKeptEntryIndex`` (an index into the parsed lines, header at 0) becomes
``firstKeptEntryId``. v2 -> v3: message role ``hookMessage`` becomes ``custom``.
"""

from __future__ import annotations

from pi_lsp.session.ids import IdFactory, new_entry_id, random_uuid
from pi_lsp.session.jsonl import JsonObject


def file_version(header: JsonObject) -> int:
    """Version a header declares; 1 when it declares none."""
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def migrate_v1_to_v2(objects: list[JsonObject], uuids: IdFactory = random_uuid) -> None:
    """Assign ids and a linear parent chain in file order (mutates ``objects``).

    ``objects`` are all parsed lines of the file, header first, as pi indexes them.
    """
    used: set[str] = set()
    previous: str | None = None
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = 2
            continue
        entry_id = new_entry_id(used, uuids)
        used.add(entry_id)
        obj["id"] = entry_id
        obj["parentId"] = previous
        previous = entry_id
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            index = obj.pop("firstKeptEntryIndex")
            if isinstance(index, int) and 0 <= index < len(objects):
                target = objects[index]
                if target.get("type") != "session" and isinstance(target.get("id"), str):
                    obj["firstKeptEntryId"] = target["id"]


def migrate_v2_to_v3(objects: list[JsonObject]) -> None:
    """Rename the legacy message role ``hookMessage`` to ``custom`` (mutates ``objects``)."""
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = 3
            continue
        message = obj.get("message")
        if obj.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") == "hookMessage":
            message["role"] = "custom"


def migrate(objects: list[JsonObject], uuids: IdFactory = random_uuid) -> int:
    """Bring parsed lines (header first) to version 3; returns the version found."""
    version = file_version(objects[0])
    if version < 2:
        migrate_v1_to_v2(objects, uuids)
    if version < 3:
        migrate_v2_to_v3(objects)
    return version

"""Conformance: every session of the corpus loads exactly as pi v0.58.3 loads it.

The corpus folder is a parameter (``PI_LSP_CONFORMANCE_DIR``); each ``sessions/*.jsonl`` (or
``.jsonl.gz``) is checked against its ``.expected.json``: header, migration ids, entry count,
leaf, name, branch, context at the leaf and at every ``contextAt`` target, labels, tree, list info.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session import SessionStore
from pi_lsp.session.listing import SessionLister
from tests.conftest import CONFORMANCE_DIR

SESSIONS = CONFORMANCE_DIR / "sessions"
NAMES = sorted(
    p.name.removesuffix(".gz").removesuffix(".jsonl")
    for p in SESSIONS.glob("*.jsonl*")
    if p.name.endswith((".jsonl", ".jsonl.gz"))
)


def test_corpus_is_present() -> None:
    assert len(NAMES) >= 44, f"expected the pi corpus in {SESSIONS}"


def _json(value: Any) -> Any:
    """Compare as JSON values (tuples become lists, key order is irrelevant)."""
    return json.loads(json.dumps(value))


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Case:
    """One corpus session, opened the way pi opened it."""

    def __init__(self, name: str, tmp: Path) -> None:
        self.name = name
        self.expected = json.loads((SESSIONS / f"{name}.expected.json").read_text())
        source = SESSIONS / f"{name}.jsonl"
        if source.exists():
            self.path = source
        else:  # large corpus files are gzipped; pi read the plain file
            self.path = tmp / f"{name}.jsonl"
            with gzip.open(SESSIONS / f"{name}.jsonl.gz") as packed, self.path.open("wb") as out:
                shutil.copyfileobj(packed, out)
        migration = self.expected["migration"]
        assigned = iter((migration or {}).get("assignedIds") or [])
        self.store = SessionStore.open(self.path, uuids=lambda: next(assigned))

    @property
    def heavy(self) -> bool:
        return bool(self.expected.get("heavy"))


@pytest.fixture(params=NAMES)
def case(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Case]:
    loaded = Case(request.param, tmp_path)
    yield loaded
    loaded.store.close()


def test_header_and_counts(case: Case) -> None:
    store, expected = case.store, case.expected
    assert _json(store.header) == expected["header"]
    assert store.entry_count == expected["entryCount"]
    assert store.leaf_id == expected["leafId"]
    assert store.session_name == expected["sessionName"]
    assert [r.id for r in store.branch_path()] == expected["branch"]


def test_context_at_leaf(case: Case) -> None:
    assert _json(case.store.context().to_json()) == case.expected["context"]


def test_context_at_other_entries(case: Case) -> None:
    store = case.store
    for probe in case.expected["contextAt"]:
        store.branch(probe["targetId"])
        assert store.require(probe["targetId"]).type == probe["targetType"]
        assert [r.id for r in store.branch_path()] == probe["branch"]
        context = store.context()
        expected = probe["context"]
        if "messageRefs" in expected:  # heavy files record references, not messages
            refs = [
                {"entryId": entry_id, "role": message["role"]}
                for entry_id, message in zip(context.entry_ids, context.messages, strict=True)
            ]
            assert refs == expected["messageRefs"]
            assert context.thinking_level == expected["thinkingLevel"]
            assert _json(context.model) == expected["model"]
        else:
            assert _json(context.to_json()) == expected


def test_labels_and_tree(case: Case) -> None:
    store = case.store
    assert store.labels == case.expected["labels"]
    assert store.tree().to_json(timestamps=not case.heavy) == case.expected["tree"]


def test_list_info(case: Case) -> None:
    info = SessionLister().info(case.path)
    assert info is not None
    got = info.model_dump()
    expected = dict(case.expected["listInfo"])
    if "allMessagesTextLength" in expected:
        assert _utf16_len(got.pop("allMessagesText")) == expected.pop("allMessagesTextLength")
    assert {k: got[k] for k in expected} == expected


def test_migration_rewrites_with_backup(case: Case, tmp_path: Path) -> None:
    migration = case.expected["migration"]
    if migration is None:
        assert case.store.from_version == 3
        return
    assert case.store.from_version == migration["fromVersion"]
    copy = tmp_path / "copy.jsonl"
    original = case.path.read_bytes()
    copy.write_bytes(original)
    assigned = iter(migration.get("assignedIds") or [])
    store = SessionStore.open(copy, uuids=lambda: next(assigned))
    assert copy.read_bytes() == original  # opening never writes
    store.ensure_migrated()
    backups = list(tmp_path.glob("copy.jsonl.v*.bak"))
    assert [b.read_bytes() for b in backups] == [original]
    rewritten = [json.loads(line) for line in copy.read_text().splitlines()]
    assert rewritten[0]["version"] == 3
    if migration.get("rewrittenFile"):
        expected = [json.loads(line) for line in migration["rewrittenFile"].splitlines()]
        assert rewritten == expected
    reopened = SessionStore.open(copy)
    assert reopened.from_version == 3
    assert _json(reopened.context().to_json()) == case.expected["context"]


def test_indexed_context_equals_the_full_walk_at_every_entry(case: Case) -> None:
    """The fast builder (settings inherited at index time) agrees with pi's path walk."""
    from pi_lsp.session.context import build_context
    from pi_lsp.session.tree import path_to_root

    store = case.store
    records = store.records
    step = max(1, len(records) // 300)  # every entry of small files; a sample of the big ones
    by_id = {r.id: r for r in records}
    for record in records[::step]:
        fast = store.context(record.id)
        slow = build_context(path_to_root(by_id, record.id))
        assert fast.to_json() == slow.to_json(), record.id
        assert fast.entry_ids == slow.entry_ids

"""Every corpus session read by pi 1.6.0 itself and by pi_lsp: same context, same per-message
tokens, same compaction plan (chars4), same raw cut points.

The corpus's own expected values are pi v0.58.3's (tests/conformance). Where pi 1.6.0 changed
a result (tests/conformance/test_compaction.py lists each case and why), these tests check the
new one against the real pi, at exactly the leaves and budgets the corpus uses, plus four
budgets at every file's leaf.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.compaction import CHARS4, TokenCounter, find_cut_point
from pi_lsp.session import SessionStore
from pi_lsp.session.projection import Projected, entry_messages
from tests.conftest import CONFORMANCE_DIR
from tests.interop.compare import ours, theirs
from tests.interop.pi16 import oracle

SESSIONS = CONFORMANCE_DIR / "sessions"
EXPECTED = CONFORMANCE_DIR / "compaction"
KEEPS = (40, 200, 2000, 20000)
NAMES = sorted(p.name.removesuffix(".jsonl") for p in SESSIONS.glob("*.jsonl"))
FILES: dict[str, Path] = {}


def _is_v1(path: Path) -> bool:
    with path.open("rb") as f:
        header = json.loads(f.readline())
    return header.get("type") == "session" and header.get("version", 1) < 2


def _probes(name: str) -> list[tuple[str | None, int | None, list[dict[str, int]]]]:
    """(leaf, keep, raw cuts) the corpus checks for ``name``, plus four budgets at the leaf."""
    probes: list[tuple[str | None, int | None, list[dict[str, int]]]] = [
        (None, keep, []) for keep in KEEPS
    ]
    expected_file = EXPECTED / f"{name}.compaction.json"
    if not expected_file.exists():
        return probes
    expected = json.loads(expected_file.read_text())

    def cuts(items: list[dict[str, Any]]) -> list[dict[str, int]]:
        return [
            {"start": c["startIndex"], "end": c["endIndex"], "keep": c["keepRecentTokens"]}
            for c in items
        ]

    probes.append((None, None, cuts(expected["cutPoints"])))
    probes += [(None, p["keepRecentTokens"], []) for p in expected["preparations"]]
    for item in expected["atCompactionEntries"]:
        leaf = item["pathEndId"]
        probes.append((leaf, None, cuts(item["cutPoints"])))
        probes += [(leaf, p["keepRecentTokens"], []) for p in item["preparations"]]
        if item["keepRecentTokensUsed"] is not None:
            probes.append((leaf, item["keepRecentTokensUsed"], []))
    return probes


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[Any, Any]]]:
    # v1 files get random ids on migration: pi_lsp migrates a copy with the ids the corpus
    # recorded (it rewrites the file as v3), and both programs read that copy.
    work = tmp_path_factory.mktemp("corpus")
    for name in NAMES:
        FILES[name] = SESSIONS / f"{name}.jsonl"
        if _is_v1(FILES[name]):
            FILES[name] = work / f"{name}.jsonl"
            shutil.copyfile(SESSIONS / f"{name}.jsonl", FILES[name])
            session = json.loads((SESSIONS / f"{name}.expected.json").read_text())
            assigned = iter(session["migration"]["assignedIds"])
            store = SessionStore.open(FILES[name], uuids=lambda a=assigned: next(a))  # type: ignore[misc]
            store.ensure_migrated()
            store.close()
            assert not _is_v1(FILES[name])
    packed = SESSIONS / "bench-large-20k.jsonl.gz"
    FILES["bench-large-20k"] = work / "bench-large-20k.jsonl"
    with gzip.open(packed) as source, FILES["bench-large-20k"].open("wb") as out:
        shutil.copyfileobj(source, out)
    probes = {name: _probes(name) for name in [*NAMES, "bench-large-20k"]}
    requests = []
    for name, items in probes.items():
        for leaf, keep, cuts in items:
            request: dict[str, Any] = {"file": str(FILES[name]), "cuts": cuts}
            if leaf is not None:
                request["leafId"] = leaf
            if keep is not None:
                request["keepRecentTokens"] = keep
            requests.append(request)
    replies = iter(oracle(requests))
    return {name: [(probe, next(replies)) for probe in items] for name, items in probes.items()}


def our_cuts(path: Path, leaf: str | None, cuts: list[dict[str, int]]) -> list[dict[str, Any]]:
    store = SessionStore.open(path)
    try:
        branch = store.branch_path(leaf)
    finally:
        store.close()
    raw = [Projected(r, entry_messages(r)) for r in branch]
    counter = TokenCounter(CHARS4)
    out = []
    for c in cuts:
        point = find_cut_point(raw, c["start"], c["end"], c["keep"], counter.count_projected)
        out.append(
            {
                "firstKeptEntryIndex": point.first_kept_index,
                "turnStartIndex": point.turn_start_index,
                "isSplitTurn": point.is_split_turn,
            }
        )
    return out


@pytest.mark.parametrize("name", [*NAMES, "bench-large-20k"])
def test_corpus_file_reads_as_in_pi16(name: str, answers: dict[str, Any]) -> None:
    for (leaf, keep, cuts), answer in answers[name]:
        assert ours(FILES[name], leaf, keep) == theirs(answer), (leaf, keep)
        if cuts:
            assert our_cuts(FILES[name], leaf, cuts) == answer["cuts"], (leaf, cuts)

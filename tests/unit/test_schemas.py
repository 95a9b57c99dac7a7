"""schemas/ is generated from the pydantic models and describes every corpus line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pi_lsp import schemas_gen
from pi_lsp.session.entries import session_line
from tests.conftest import CONFORMANCE_DIR


def test_checked_in_schemas_are_up_to_date() -> None:
    assert schemas_gen.stale() == [], "run `make schemas` and commit schemas/"


def test_stale_detection_notices_a_changed_file(tmp_path: Path) -> None:
    for name, text in schemas_gen.build().items():
        (tmp_path / name).write_text(text)
    assert schemas_gen.stale(tmp_path) == []
    victim = next(tmp_path.glob("*.schema.json"))
    victim.write_text(victim.read_text().replace('"type"', '"tipe"', 1))
    (tmp_path / "orphan.schema.json").write_text("{}")
    assert schemas_gen.stale(tmp_path) == sorted([victim.name, "orphan.schema.json"])


def _validator(stem: str) -> Any:
    schema = json.loads((schemas_gen.SCHEMA_DIR / f"{stem}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _corpus_lines() -> list[tuple[str, int, Any]]:
    lines = []
    for path in sorted((CONFORMANCE_DIR / "sessions").glob("*.jsonl*")):
        raw = path.read_bytes()
        raw = gzip.decompress(raw) if path.suffix == ".gz" else raw
        for number, line in enumerate(raw.decode().split("\n"), 1):
            try:
                value = json.loads(line)
            except ValueError:
                continue  # blank, garbage and torn lines are the reader's business
            lines.append((path.name, number, value))
    return lines


LINES = _corpus_lines()


def test_the_corpus_has_lines() -> None:
    assert len(LINES) > 25_000


def test_every_corpus_line_validates_against_the_line_schema() -> None:
    validator = _validator("session-line")
    failures = [
        f"{name}:{number}: {next(iter(validator.iter_errors(value))).message}"
        for name, number, value in LINES
        if not validator.is_valid(value)
    ]
    assert failures == []


def test_every_corpus_line_validates_against_the_models() -> None:
    failures = []
    for name, number, value in LINES:
        try:
            session_line().validate_python(value)
        except ValueError as exc:
            failures.append(f"{name}:{number}: {str(exc)[:200]}")
    assert failures == []


@pytest.mark.parametrize(
    "bad",
    [
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "x"},
        },
        {"type": "label", "id": "a", "parentId": None, "timestamp": "t"},
        {"type": "session", "id": 5, "timestamp": "t", "cwd": "/"},
        {"type": "compaction", "id": "a", "parentId": None, "timestamp": "t", "summary": "s"},
    ],
)
def test_the_line_schema_rejects_broken_lines(bad: dict[str, Any]) -> None:
    assert not _validator("session-line").is_valid(bad)


def test_context_tree_and_list_outputs_validate(tmp_path: Path) -> None:
    from pi_lsp.session import SessionStore
    from pi_lsp.session.listing import SessionLister

    path = CONFORMANCE_DIR / "sessions" / "random-walk-b.jsonl"
    store = SessionStore.open(path)
    assert _validator("session-context").is_valid(json.loads(json.dumps(store.context().to_json())))
    assert _validator("session-tree").is_valid(store.tree().to_json())
    info = SessionLister().info(path)
    assert info is not None
    assert _validator("session-info").is_valid([info.model_dump()])

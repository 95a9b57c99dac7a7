"""Generate ``schemas/`` from the Python types: ``python -m pi_lsp.schemas_gen [--check]``.

Every file and wire format pi_lsp reads or writes has a type (a TypedDict over the plain JSON for
session lines, messages and events; a pydantic model for settings, params and results); this
module is the one list of them. ``--check`` exits non-zero when a checked-in schema differs from
the types (the tests run the same comparison).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _session_schemas() -> dict[str, Any]:
    from pi_lsp.session.entries import ContextOut, SessionInfo, SessionLine, TreeOut

    return {
        "session-line": TypeAdapter(SessionLine),
        "session-info": TypeAdapter(list[SessionInfo]),
        "session-tree": TypeAdapter(TreeOut),
        "session-context": TypeAdapter(ContextOut),
    }


def _context_schemas() -> dict[str, Any]:
    from pi_lsp.prompt.models import ContextFilesReport

    return {"context-files": TypeAdapter(ContextFilesReport)}


def _compaction_schemas() -> dict[str, Any]:
    from pi_lsp.compaction.models import (
        CompactionPlan,
        CompactionResult,
        ContextUsage,
        NothingToCompact,
    )

    return {
        "compaction-result": TypeAdapter(CompactionResult),
        "compaction-plan": TypeAdapter(CompactionPlan | NothingToCompact),
        "context-usage": TypeAdapter(ContextUsage),
    }


def _agent_schemas() -> dict[str, Any]:
    from pi_lsp.agent.events import AgentEvent
    from pi_lsp.devtools.fake_script import Script
    from pi_lsp.settings import Settings
    from pi_lsp.tools import TOOL_NAMES, create_tools

    tools = create_tools("/")
    schemas: dict[str, Any] = {
        "agent-event": TypeAdapter(AgentEvent),
        "settings": TypeAdapter(Settings),
        "fake-openai-script": TypeAdapter(Script),
    }
    for name in TOOL_NAMES:
        schemas[f"tool-{name}-arguments"] = TypeAdapter(tools[name].params_model)
    return schemas


def _protocol_schemas() -> dict[str, Any]:
    from pi_lsp.protocol.methods import METHODS
    from pi_lsp.protocol.payloads import schema_models

    schemas: dict[str, Any] = {}
    for method in METHODS:
        stem = method.name.replace("/", "-")
        schemas[f"{stem}.params"] = TypeAdapter(method.params)
        schemas[f"{stem}.result"] = TypeAdapter(method.result)
    for stem, model in schema_models().items():
        schemas[stem] = TypeAdapter(model)
    return schemas


PROVIDERS: list[Callable[[], dict[str, Any]]] = [
    _session_schemas,
    _context_schemas,
    _compaction_schemas,
    _agent_schemas,
    _protocol_schemas,
]
"""Functions returning ``{file stem: TypeAdapter}``; later layers append theirs."""


def build() -> dict[str, str]:
    """File name -> schema text, for every registered model."""
    out: dict[str, str] = {}
    for provider in PROVIDERS:
        for stem, adapter in provider().items():
            schema = {"$schema": DRAFT, "$id": f"{stem}.schema.json", **adapter.json_schema()}
            out[f"{stem}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    return out


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of schema files that are missing, different, or no longer generated."""
    wanted = build()
    problems = [n for n, text in wanted.items() if _read(directory / n) != text]
    problems += [p.name for p in directory.glob("*.schema.json") if p.name not in wanted]
    return sorted(problems)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` verify) the schema files."""
    parser = argparse.ArgumentParser(prog="python -m pi_lsp.schemas_gen")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for name in problems:
            print(f"stale schema: schemas/{name} (run `make schemas`)", file=sys.stderr)
        return 1 if problems else 0
    SCHEMA_DIR.mkdir(exist_ok=True)
    for old in SCHEMA_DIR.glob("*.schema.json"):
        old.unlink()
    for name, text in build().items():
        (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

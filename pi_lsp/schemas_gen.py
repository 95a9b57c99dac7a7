"""Generate ``schemas/`` from the Python types: ``python -m pi_lsp.schemas_gen [--check]``.

Every file and wire format pi_lsp reads or writes has a type (a TypedDict over the plain JSON for
session lines, messages and events; a pydantic model for settings, params and results); this
module is the one list of them. From the schema files it then writes the Neovim plugin's LuaCATS
annotations (``editors/nvim/lua/pi_lsp/types.lua``), so the Lua side never carries hand-copied
protocol types. ``--check`` exits non-zero when a checked-in schema or ``types.lua`` differs from
the types (the tests run the same comparisons).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _session_schemas() -> dict[str, Any]:
    from pi_lsp.session.entries import ContextOut, SessionLine
    from pi_lsp.session.listing import SessionInfo
    from pi_lsp.session.tree import TreeOut

    return {
        "session-line": TypeAdapter(SessionLine),
        "session-info": TypeAdapter(list[SessionInfo]),
        "session-tree": TypeAdapter(TreeOut),
        "session-context": TypeAdapter(ContextOut),
    }


def _context_schemas() -> dict[str, Any]:
    from pi_lsp.prompt.files import ContextFilesReport

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


def _acp_schemas() -> dict[str, Any]:
    """The ACP face's ``_pi/…`` extension methods' params (docs/acp.md)."""
    from pi_lsp.acp.controls import EXTENSION_PARAMS

    return {
        f"acp-{method.replace('/', '-')}.params": TypeAdapter(model)
        for method, model in EXTENSION_PARAMS.items()
    }


PROVIDERS: list[Callable[[], dict[str, Any]]] = [
    _session_schemas,
    _context_schemas,
    _compaction_schemas,
    _agent_schemas,
    _protocol_schemas,
    _acp_schemas,
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


# LuaCATS types for the Neovim plugin, generated from the schema files: one ``---@class`` per
# schema and per ``$defs`` entry, with ``---@field`` lines typed from the JSON Schema (optional
# fields end in ``?``, enums become string literal unions, ``$ref`` names the class).

LUA_TYPES = SCHEMA_DIR.parent / "editors" / "nvim" / "lua" / "pi_lsp" / "types.lua"
LUA_PREFIX = "pi_lsp."
JsonSchema = dict[str, Any]


def class_name(stem: str) -> str:
    """``pi-session-state.result`` → ``PiSessionStateResult``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-._]", stem) if part)


class LuaGenerator:
    """Collects classes from schemas (first definition of a name wins; names are stable)."""

    def __init__(self) -> None:
        self.classes: dict[str, list[str]] = {}

    def lua_type(self, schema: JsonSchema, owner: str, field: str) -> str:
        """The LuaCATS type of a schema."""
        if "$ref" in schema:
            return LUA_PREFIX + str(schema["$ref"]).rsplit("/", 1)[-1]
        if "const" in schema:
            return json.dumps(schema["const"]) if isinstance(schema["const"], str) else "any"
        if "enum" in schema:
            values = [json.dumps(v) for v in schema["enum"] if isinstance(v, str)]
            return "|".join(values) if values else "any"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                parts: list[str] = []
                for option in schema[key]:
                    text = self.lua_type(option, owner, field)
                    if text not in parts:
                        parts.append(text)
                return "|".join(parts)
        kind = schema.get("type")
        if isinstance(kind, list):
            return "|".join(self.lua_type({**schema, "type": k}, owner, field) for k in kind)
        if kind == "array":
            item = self.lua_type(schema.get("items", {}), owner, field)
            return f"({item})[]" if "|" in item else f"{item}[]"
        if kind == "object":
            if schema.get("properties"):
                name = owner + field[:1].upper() + field[1:]
                self.add_class(name, schema)
                return LUA_PREFIX + name
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return f"table<string, {self.lua_type(extra, owner, field)}>"
            return "table<string, any>"
        return {
            "string": "string",
            "integer": "integer",
            "number": "number",
            "boolean": "boolean",
            "null": "nil",
        }.get(str(kind), "any")

    def add_class(self, name: str, schema: JsonSchema) -> None:
        """One ``---@class`` block; a known name is checked, not written twice.

        Two schemas that define one name differently are an error (the first would silently
        hide the second otherwise).
        """
        if name in self.classes:
            if self.classes[name] and self.class_lines(name, schema) != self.classes[name]:
                raise ValueError(f"two different definitions of {name} in schemas/")
            return
        self.classes[name] = []  # reserve first: nested classes may refer back
        self.classes[name] = self.class_lines(name, schema)

    def class_lines(self, name: str, schema: JsonSchema) -> list[str]:
        """The ``---@class`` and ``---@field`` lines of an object schema."""
        lines = []
        description = " ".join(str(schema.get("description", "")).split())
        lines.append(f"---@class {LUA_PREFIX}{name}" + (f" {description}" if description else ""))
        required = set(schema.get("required", []))
        for field, sub in schema.get("properties", {}).items():
            text = self.lua_type(sub, name, field)
            optional = field not in required or text.endswith("|nil") or text == "nil"
            text = text.removesuffix("|nil").replace("|nil|", "|") if text != "nil" else "nil"
            lines.append(f"---@field {field}{'?' if optional else ''} {text}")
        return lines

    def add_schema(self, path: Path) -> None:
        """The classes of one schema file: its ``$defs``, then the schema itself."""
        schema = json.loads(path.read_text())
        for name, sub in sorted(schema.get("$defs", {}).items()):
            if sub.get("type") == "object" or "properties" in sub:
                self.add_class(name, sub)
            else:
                self.classes.setdefault(
                    name, [f"---@alias {LUA_PREFIX}{name} {self.lua_type(sub, name, '')}"]
                )
        stem = path.name.removesuffix(".schema.json")
        title = schema.get("title")
        if isinstance(title, str) and title != class_name(stem) and "properties" in schema:
            # A result that is a shared type (SessionState, ...) names it once, by alias.
            self.add_class(title, {k: v for k, v in schema.items() if k != "$defs"})
            self.classes.setdefault(
                class_name(stem), [f"---@alias {LUA_PREFIX}{class_name(stem)} {LUA_PREFIX}{title}"]
            )
        elif schema.get("type") == "object" or "properties" in schema:
            self.add_class(class_name(stem), schema)
        else:
            alias = self.lua_type(schema, class_name(stem), "")
            self.classes.setdefault(
                class_name(stem), [f"---@alias {LUA_PREFIX}{class_name(stem)} {alias}"]
            )

    def render(self) -> str:
        """The whole ``types.lua``."""
        head = [
            "-- Generated from schemas/ by `python -m pi_lsp.schemas_gen` (make schemas).",
            "-- Do not edit: tests/nvim/test_lua_types.py fails when this file is stale.",
            "---@meta",
            "",
        ]
        body = [line for name in self.classes for line in [*self.classes[name], ""]]
        return "\n".join([*head, *body, "return {}", ""])


def lua_types(schemas: Path = SCHEMA_DIR) -> str:
    """``types.lua`` for the protocol schemas (``pi-*``) and the session line schema."""
    generator = LuaGenerator()
    for path in sorted(schemas.glob("pi-*.schema.json")):
        generator.add_schema(path)
    return generator.render()


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` verify) the schema files, then ``types.lua``."""
    parser = argparse.ArgumentParser(prog="python -m pi_lsp.schemas_gen")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for name in problems:
            print(f"stale schema: schemas/{name} (run `make schemas`)", file=sys.stderr)
        if _read(LUA_TYPES) != lua_types():
            problems.append(LUA_TYPES.name)
            print(f"{LUA_TYPES} is stale (run `make schemas`)", file=sys.stderr)
        return 1 if problems else 0
    SCHEMA_DIR.mkdir(exist_ok=True)
    for old in SCHEMA_DIR.glob("*.schema.json"):
        old.unlink()
    for name, text in build().items():
        (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
    LUA_TYPES.write_text(lua_types(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

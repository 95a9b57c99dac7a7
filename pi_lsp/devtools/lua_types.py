"""LuaCATS type annotations for the Neovim plugin, generated from ``schemas/``.

``python -m pi_lsp.devtools.lua_types`` (also run by ``make schemas``) writes
``editors/nvim/lua/pi_lsp/types.lua``: one ``---@class`` per schema and per ``$defs`` entry, with
``---@field`` lines typed from the JSON Schema (optional fields end in ``?``, enums become string
literal unions, ``$ref`` names the class). A test fails when the committed file is stale, so the
Lua side never carries hand-copied protocol types.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
OUTPUT = ROOT / "editors" / "nvim" / "lua" / "pi_lsp" / "types.lua"
PREFIX = "pi_lsp."
JsonSchema = dict[str, Any]


def class_name(stem: str) -> str:
    """``pi-session-state.result`` → ``PiSessionStateResult``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-._]", stem) if part)


class Generator:
    """Collects classes from schemas (first definition of a name wins; names are stable)."""

    def __init__(self) -> None:
        self.classes: dict[str, list[str]] = {}

    def lua_type(self, schema: JsonSchema, owner: str, field: str) -> str:
        """The LuaCATS type of a schema."""
        if "$ref" in schema:
            return PREFIX + str(schema["$ref"]).rsplit("/", 1)[-1]
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
                return PREFIX + name
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
        lines.append(f"---@class {PREFIX}{name}" + (f" {description}" if description else ""))
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
                    name, [f"---@alias {PREFIX}{name} {self.lua_type(sub, name, '')}"]
                )
        stem = path.name.removesuffix(".schema.json")
        title = schema.get("title")
        if isinstance(title, str) and title != class_name(stem) and "properties" in schema:
            # A result that is a shared type (SessionState, ...) names it once, by alias.
            self.add_class(title, {k: v for k, v in schema.items() if k != "$defs"})
            self.classes.setdefault(
                class_name(stem), [f"---@alias {PREFIX}{class_name(stem)} {PREFIX}{title}"]
            )
        elif schema.get("type") == "object" or "properties" in schema:
            self.add_class(class_name(stem), schema)
        else:
            alias = self.lua_type(schema, class_name(stem), "")
            self.classes.setdefault(
                class_name(stem), [f"---@alias {PREFIX}{class_name(stem)} {alias}"]
            )

    def render(self) -> str:
        """The whole ``types.lua``."""
        head = [
            "-- Generated from schemas/ by `python -m pi_lsp.devtools.lua_types` (make schemas).",
            "-- Do not edit: tests/nvim/test_lua_types.py fails when this file is stale.",
            "---@meta",
            "",
        ]
        body = [line for name in self.classes for line in [*self.classes[name], ""]]
        return "\n".join([*head, *body, "return {}", ""])


def generate(schemas: Path = SCHEMAS) -> str:
    """``types.lua`` for the protocol schemas (``pi-*``) and the session line schema."""
    generator = Generator()
    for path in sorted(schemas.glob("pi-*.schema.json")):
        generator.add_schema(path)
    return generator.render()


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) ``types.lua``."""
    parser = argparse.ArgumentParser(prog="python -m pi_lsp.devtools.lua_types")
    parser.add_argument("--check", action="store_true", help="fail when the file is stale")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT} is stale: run `make schemas`", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The plugin's LuaCATS types are generated from schemas/ and must be current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp import schemas_gen


def test_types_lua_is_generated_from_the_current_schemas() -> None:
    assert schemas_gen.LUA_TYPES.read_text() == schemas_gen.lua_types(), (
        "editors/nvim/lua/pi_lsp/types.lua is stale: run `make schemas`"
    )


def test_every_protocol_schema_has_a_class() -> None:
    text = schemas_gen.lua_types()
    for path in sorted(schemas_gen.SCHEMA_DIR.glob("pi-*.schema.json")):
        name = schemas_gen.class_name(path.name.removesuffix(".schema.json"))
        assert f"pi_lsp.{name}" in text, name
    # the permission answer's shape, as the daemon's schema requires it
    assert "---@alias pi_lsp.PiRequestPermissionResult pi_lsp.PermissionResult" in text
    assert "---@class pi_lsp.PermissionResult" in text
    assert "---@field decision pi_lsp.PermissionDecision" in text
    assert '---@alias pi_lsp.PermissionDecision "allowOnce"|"allowSession"|"deny"' in text


def test_each_shape_is_written_once() -> None:
    """A result that is a shared type (SessionState for six methods) is an alias of it, not a copy."""
    text = schemas_gen.lua_types()
    blocks = [block for block in text.split("\n\n") if block.startswith("---@class")]
    bodies = ["\n".join(block.splitlines()[1:]) for block in blocks]
    repeated = {body for body in bodies if body and bodies.count(body) > 1}
    assert not repeated, [blocks[bodies.index(body)].splitlines()[0] for body in repeated]
    assert "---@alias pi_lsp.PiSessionNewResult pi_lsp.SessionState" in text


def test_two_different_definitions_of_one_name_are_an_error(tmp_path: Path) -> None:
    for name, field in (("pi-a.result", "x"), ("pi-b.result", "y")):
        schema = {"title": "Shared", "type": "object", "properties": {field: {"type": "string"}}}
        (tmp_path / f"{name}.schema.json").write_text(json.dumps(schema))
    with pytest.raises(ValueError, match="two different definitions of Shared"):
        schemas_gen.lua_types(tmp_path)

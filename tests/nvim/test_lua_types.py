"""The plugin's LuaCATS types are generated from schemas/ and must be current."""

from __future__ import annotations

from pi_lsp.devtools import lua_types


def test_types_lua_is_generated_from_the_current_schemas() -> None:
    assert lua_types.OUTPUT.read_text() == lua_types.generate(), (
        "editors/nvim/lua/pi_lsp/types.lua is stale: run `make schemas`"
    )


def test_every_protocol_schema_has_a_class() -> None:
    text = lua_types.generate()
    for path in sorted(lua_types.SCHEMAS.glob("pi-*.schema.json")):
        name = lua_types.class_name(path.name.removesuffix(".schema.json"))
        assert f"pi_lsp.{name}" in text, name
    # the permission answer's shape, as the daemon's schema requires it
    assert "---@class pi_lsp.PiRequestPermissionResult" in text
    assert "---@field decision pi_lsp.PermissionDecision" in text
    assert '---@alias pi_lsp.PermissionDecision "allowOnce"|"allowSession"|"deny"' in text

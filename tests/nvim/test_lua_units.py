"""Unit tests of the plugin's pure Lua modules (render, tree, foreign, edits.refusal,
state.format, permission.result, command completion), run in real Neovim's LuaJIT without a daemon."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pynvim
import pytest

from tests.nvim.conftest import BIN, PLUGIN

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.fixture(scope="module")
def lua() -> Iterator[Any]:
    nvim_bin = shutil.which("nvim", path=str(BIN))
    nvim = pynvim.attach("child", argv=[nvim_bin, "--embed", "--headless", "--clean", "-n"])
    nvim.exec_lua("vim.opt.rtp:prepend(...)", str(PLUGIN))
    yield lambda code, *args: nvim.exec_lua(code, *args)
    with contextlib.suppress(Exception):
        nvim.quit()
    nvim.close()


ENTRIES = [
    {
        "type": "message",
        "id": "u1",
        "message": {"role": "user", "content": [{"type": "text", "text": "two\nlines"}]},
    },
    {
        "type": "message",
        "id": "a1",
        "message": {
            "role": "assistant",
            "model": "m",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Reading."},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x.py"}},
            ],
        },
    },
    {
        "type": "message",
        "id": "r1",
        "message": {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "read",
            "content": [{"type": "text", "text": "print(1)"}],
            "isError": False,
        },
    },
    {"type": "compaction", "id": "k1", "summary": "## Goal\nstuff"},
]


RENDERED = [  # each line of ENTRIES in the chat: its text, its entry, its fold level
    ("## You", "u1", "0"), ("two", "u1", "0"), ("lines", "u1", "0"), ("", "u1", "0"),
    ("## pi · m", "a1", "0"), ("> _thinking_", "a1", ">1"), ("> hmm", "a1", "1"),
    ("Reading.", "a1", "0"), ("▸ read x.py", "a1", "0"), ("", "a1", "0"),
    ("  ↳ read result", "r1", ">1"), ("    print(1)", "r1", "1"),
    ("### Compaction (earlier history summarized)", "k1", ">1"), ("## Goal", "k1", "1"),
    ("stuff", "k1", "1"), ("", "k1", "0"),
]  # fmt: skip


def test_render_entries_lines_entry_ids_and_folds(lua: Any) -> None:
    out = lua(
        "local r = require('pi_lsp.render'); local pieces = r.entries(...);"
        " local lines, ids = {}, {}; for _, p in ipairs(pieces) do for _, l in ipairs(p.lines) do"
        " table.insert(lines, l); table.insert(ids, p.entry) end end;"
        " return {lines, ids, r.fold_levels(pieces)}",
        ENTRIES,
    )
    lines, ids, levels = out
    assert list(zip(lines, ids, levels, strict=True)) == RENDERED


def test_tool_line_is_one_line(lua: Any) -> None:
    r = "return require('pi_lsp.render').tool_line(...)"
    assert lua(r, "bash", {"command": "echo a\necho b"}) == "▸ bash echo a echo b"
    assert lua(r, "ls", {}) == "▸ ls"
    assert len(lua(r, "write", {"path": "p" * 200})) < 100


NODES = [
    {"id": "a", "parentId": None, "type": "message", "role": "user", "preview": "q1", "children": ["b"]},
    {"id": "b", "parentId": "a", "type": "message", "role": "assistant", "preview": "a1", "children": ["c", "d"]},
    {"id": "c", "parentId": "b", "type": "message", "role": "user", "preview": "q2", "children": []},
    {"id": "d", "parentId": "b", "type": "message", "role": "user", "preview": "q3", "label": "mine", "children": []},
]  # fmt: skip


def test_tree_layout_active_path_leaf_and_appends(lua: Any) -> None:
    out = lua(
        "local t = require('pi_lsp.tree'); local m = t.new({leafId = 'd', nodes = ...});"
        " local l1, ids1, f1 = t.lines(m);"
        " t.add(m, {id = 'e', parentId = 'c', type = 'branch_summary', preview = 'sum', children = {}});"
        " m.leaf = 'e'; local l2, ids2, f2 = t.lines(m); return {l1, ids1, f1, l2, f2}",
        NODES,
    )
    lines, ids, flags, lines2, flags2 = out
    assert lines == ["you: q1", "pi: a1", "  ├ you: q2", "  ├ ● you: q3  [mine]"]
    assert ids == ["a", "b", "c", "d"]
    assert [f["active"] for f in flags] == [True, True, False, True]
    assert [f["leaf"] for f in flags] == [False, False, False, True]
    assert lines2[3] == "  ● [branch summary] sum"
    assert [f["active"] for f in flags2] == [True, True, True, True, False]


def test_tree_of_a_long_chain_is_flat(lua: Any) -> None:
    count = lua(
        "local nodes = {}; for i = 1, 5000 do nodes[i] = {id = tostring(i),"
        " parentId = i > 1 and tostring(i - 1) or vim.NIL, type = 'message', role = 'user',"
        " preview = 'x', children = i < 5000 and {tostring(i + 1)} or {}} end;"
        " local t = require('pi_lsp.tree'); local lines = t.lines(t.new({leafId = '5000', nodes = nodes}));"
        " local indented = 0; for _, l in ipairs(lines) do if l:sub(1, 1) == ' ' then indented = indented + 1 end end;"
        " return {#lines, indented}"
    )
    assert count == [5000, 0]


FOREIGN_NOTE = """
local f = require('pi_lsp.foreign'); local event, nodes = ...
local note = f.note(event, nodes); local lines, ids = {}, {}
for _, p in ipairs(note.pieces) do for _, l in ipairs(p.lines) do
  table.insert(lines, l); table.insert(ids, p.entry) end end
return {note.after or vim.NIL, lines, ids}
"""


def test_foreign_note_names_the_entries_and_carries_their_ids(lua: Any) -> None:
    nodes = {n["id"]: n for n in NODES}
    after, lines, ids = lua(FOREIGN_NOTE, {"entryIds": ["c", "d"], "leafId": "b"}, nodes)
    assert after == "b"
    assert "another program added 2 entries" in lines[0] and ":Pi tree" in lines[0]
    assert lines[1:] == ["  · you: q2", "  · you: q3  [mine]", ""]
    assert ids == ["d", "c", "d", "d"]  # the header and the blank: the tip of their branch
    many = [f"x{i}" for i in range(7)]
    after, lines, ids = lua(FOREIGN_NOTE, {"entryIds": many, "leafId": None}, {"x0": NODES[0]})
    assert after is None
    assert lines[1:3] == ["  · you: q1", "  · entry x1"]  # an id without its node still shows
    assert lines[-2:] == ["  · … and 2 more", ""] and len(lines) == 1 + 5 + 2
    assert "1 entry " in lua(FOREIGN_NOTE, {"entryIds": ["c"], "leafId": "b"}, nodes)[1][0]


def test_foreign_notes_follow_their_entry_when_the_chat_is_rendered_again(lua: Any) -> None:
    place = (
        "local pieces, notes = ...; local out = {};"
        " for _, p in ipairs(require('pi_lsp.foreign').place(pieces, notes)) do"
        " table.insert(out, p.lines[1]) end; return out"
    )
    pieces = [
        {"lines": [t], "entry": e} for t, e in [("u", "1"), ("a", "2"), ("", "2"), ("v", "3")]
    ]
    notes = [
        {"after": "2", "pieces": [{"lines": ["note A"]}]},
        {"after": "9", "pieces": [{"lines": ["elsewhere"]}]},  # not on this path: left out
        {"after": "2", "pieces": [{"lines": ["note B"]}]},
    ]
    assert lua(place, pieces, notes) == ["u", "a", "", "note A", "note B", "v"]
    assert lua(place, pieces, []) == ["u", "a", "", "v"]


def test_stale_edits_are_refused(lua: Any) -> None:
    check = (
        "local edit, versions = ...; return require('pi_lsp.edits').refusal(edit,"
        " function(uri) return versions[uri] end)"
    )
    doc = {"textDocument": {"uri": "file:///p/x.py", "version": 4}, "edits": []}
    assert lua(check, {"documentChanges": [doc]}, {"file:///p/x.py": 4}) is None
    reason = lua(check, {"documentChanges": [doc]}, {"file:///p/x.py": 5})
    assert "changed since the edit was made" in reason and "5" in reason
    assert "not loaded" in lua(check, {"documentChanges": [doc]}, {"other": 1})
    unversioned = {"changes": {"file:///p/x.py": []}}
    assert "unversioned" in lua(check, unversioned, {"file:///p/x.py": 4})
    created = {"documentChanges": [{"kind": "create", "uri": "file:///p/n.py"},
               {"textDocument": {"uri": "file:///p/n.py", "version": None}, "edits": []}]}  # fmt: skip
    assert lua(check, created, {}) is None


def test_permission_results_match_the_daemon_schema(lua: Any) -> None:
    schema = json.loads((SCHEMAS / "pi-request-permission-result.schema.json").read_text())
    results = lua(
        "local p = require('pi_lsp.permission'); local out = {};"
        " for _, c in ipairs(p.choices) do table.insert(out, p.result(c)) end;"
        " table.insert(out, p.result(nil)); return out"
    )
    for result in results:
        jsonschema.validate(result, schema)
    assert [r["decision"] for r in results] == ["allowOnce", "allowSession", "deny", "deny"]


def test_status_format(lua: Any) -> None:
    fmt = "return require('pi_lsp.state').format(...)"
    state = {
        "model": {"modelId": "gpt"},
        "thinkingLevel": "high",
        "contextUsage": {"percent": 12.345},
        "isStreaming": False,
    }
    assert lua(fmt, state, 0.5, False) == "gpt (high) · 12.3% · $0.5000"
    assert lua(fmt, {**state, "isStreaming": True}, 0, False).endswith(" · running")
    assert lua(fmt, state, 0, True).endswith(" · running elsewhere")
    assert lua(fmt, None, 0, False) == ""


def test_empty_params_go_out_as_a_json_object(lua: Any) -> None:
    assert lua("return vim.json.encode(require('pi_lsp.client').params({}))") == "{}"
    assert lua("return vim.json.encode(require('pi_lsp.client').params(nil))") == "{}"


def test_command_completion(lua: Any) -> None:
    complete = "return require('pi_lsp.commands').complete(...)"
    assert lua(complete, "", "Pi ") == [
        "abort", "compact", "fork", "label", "model", "new", "rename", "sessions", "thinking", "tree",
    ]  # fmt: skip
    assert lua(complete, "t", "Pi t") == ["thinking", "tree"]
    assert lua(complete, "h", "Pi thinking h") == ["high"]


def test_help_tags_build_and_cover_the_commands(lua: Any, tmp_path: Path) -> None:
    doc = tmp_path / "doc"
    shutil.copytree(PLUGIN / "doc", doc)
    lua("vim.cmd.helptags(...)", str(doc))
    tags = (doc / "tags").read_text()
    for tag in ("pi_lsp-config", "pi_lsp-commands", ":Pi", "pi_lsp.status()", "pi_lsp-chat",
                "pi_lsp-tree", "pi_lsp-foreign", "pi_lsp-edits", "pi_lsp.entry_at_cursor()", "pi_lsp-health"):  # fmt: skip
        assert f"{tag}\t" in tags, tag
    text = (PLUGIN / "doc" / "pi_lsp.txt").read_text()
    subcommands = lua("return vim.tbl_keys(require('pi_lsp.commands').subcommands)")
    for name in subcommands:
        assert f":Pi {name}" in text, name


def test_help_works_from_a_plain_runtimepath_entry(lua: Any, tmp_path: Path) -> None:
    """No plugin manager builds the tags for a bare ``rtp`` entry: the plugin file does."""
    copy = tmp_path / "nvim"
    shutil.copytree(PLUGIN, copy, ignore=shutil.ignore_patterns("tags"))
    assert not (copy / "doc" / "tags").exists()
    found = lua(
        "vim.opt.rtp:prepend(...); vim.g.loaded_pi_lsp = nil; vim.cmd('runtime plugin/pi_lsp.lua');"
        " vim.cmd('help pi_lsp-foreign'); local name = vim.api.nvim_buf_get_name(0);"
        " vim.cmd('helpclose'); return name",
        str(copy),
    )
    assert found == str(copy / "doc" / "pi_lsp.txt")

"""The model picker in real Neovim: feedback while the daemon lists the models, its errors, and
the model a provider key alone gives (pi 1.6.0's default for that provider)."""

from __future__ import annotations

from typing import Any

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from tests.nvim.conftest import Nvim, settings
from tests.nvim.test_chat import open_chat, send, wait_chat

RECORD = (
    "_G.notes = {}; local notify = vim.notify; vim.notify = function(m, l, o)"
    " table.insert(_G.notes, {m, l or vim.log.levels.INFO}); return notify(m, l, o) end;"
    " _G.items = nil; vim.ui.select = function(items, _, cb)"
    " _G.items = vim.tbl_map(function(m) return m.id end, items) end"
)
PICK = (
    "vim.cmd('Pi model'); return {vim.tbl_map(function(n) return n[1] end, _G.notes),"
    " _G.items == nil, require('pi_lsp').status()}"
)


def _errors(n: Nvim) -> list[str]:
    return [m for m, level in n.lua("return _G.notes") if level == 4]


def test_the_picker_says_loading_at_once_then_lists_the_models(launch: Any) -> None:
    n = launch(Script())
    open_chat(n)
    n.lua(RECORD)
    notes, no_picker_yet, status = n.lua(PICK)
    # in the same main-loop tick as the command, before the daemon could answer
    assert notes == ["pi_lsp: loading models…"] and no_picker_yet
    assert status.endswith(" · loading models…")
    n.wait("return _G.items ~= nil", 120)
    items = n.lua("return _G.items")
    assert items[:2] == ["openai/fake-model", "openai/fake-model-2"]
    assert "openai/gpt-6.2-sol" in items  # pi's default for the keyed provider
    assert "loading" not in n.lua("return require('pi_lsp').status()")
    assert _errors(n) == []


def test_a_failed_list_is_an_error_message(launch: Any) -> None:
    """The daemon's error answer (here injected at the plugin's request function, the one
    thing stubbed) becomes one error message, and the winbar stops saying "loading"."""
    n = launch(Script())
    open_chat(n)
    n.lua(RECORD)
    n.lua(
        "local c = require('pi_lsp.client'); local real = c.request;"
        " c.request = function(method, params, cb) if method ~= 'pi/models/list' then"
        " return real(method, params, cb) end; vim.defer_fn(function()"
        " cb({ code = -32603, message = 'the model table is unreadable' }, nil) end, 50) end"
    )
    n.nvim.command("Pi model")
    n.wait("return #_G.notes >= 2", 30)
    assert _errors(n) == ["pi_lsp: could not list the models: the model table is unreadable"]
    assert n.lua("return require('pi_lsp.state').loading_models") is False
    assert "loading" not in n.lua("return require('pi_lsp').status()")
    assert n.lua("return _G.items") is None


def test_an_empty_list_says_what_to_set(launch: Any) -> None:
    fake = FakeOpenAI(Script())
    fake.start()
    bare = {k: v for k, v in settings(fake).items() if k not in ("defaultModel", "models")}
    n = launch(fake=fake, settings=bare, cmd_env={"OPENAI_API_KEY": ""})
    open_chat(n)
    n.lua(RECORD)
    n.nvim.command("Pi model")
    n.wait("return #_G.notes >= 2", 120)
    (error,) = _errors(n)
    assert error.startswith("pi_lsp: no models to choose from: set a provider key")
    assert n.lua("return _G.items") is None


def test_a_provider_key_without_default_model_gives_pis_default(launch: Any) -> None:
    fake = FakeOpenAI(Script(turns=[Turn(text="Answered by the default model.")]))
    fake.start()
    no_default = {k: v for k, v in settings(fake).items() if k != "defaultModel"}
    n = launch(fake=fake, settings=no_default)  # OPENAI_API_KEY is set
    open_chat(n)
    n.wait("return require('pi_lsp').status():find('gpt%-6%.2%-sol') ~= nil", 60)
    send(n, "hello")
    wait_chat(n, "Answered by the default model.")
    assert fake.bodies[-1]["model"] == "gpt-6.2-sol"

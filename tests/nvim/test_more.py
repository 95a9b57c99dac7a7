"""More of the plugin in real Neovim: start-up errors, no model yet, buffers without a filetype,
steering and follow-ups while a turn streams, :Pi compact, :Pi rename, :Pi thinking, the winbar."""

from __future__ import annotations

from typing import Any

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from tests.nvim.conftest import Nvim, settings
from tests.nvim.test_chat import chat_text, line_of, open_chat, send, wait_chat, wait_idle


def test_a_missing_daemon_is_one_clear_message(launch: Any) -> None:
    n = launch(Script())
    out = n.lua(
        "local msgs = {}; local notify = vim.notify;"
        " vim.notify = function(m, l) table.insert(msgs, {m, l}) end;"
        " local ok = require('pi_lsp').setup({ cmd = { '/nowhere/pi-lsp', '--stdio' } });"
        " vim.notify = notify; return {ok, msgs}"
    )
    ok, messages = out
    assert ok is False and len(messages) == 1
    text, level = messages[0]
    assert "/nowhere/pi-lsp" in text and "Fix:" in text and "setup({ cmd" in text
    assert level == 4  # vim.log.levels.ERROR


def test_without_a_model_the_error_says_how_to_choose_one(launch: Any) -> None:
    """A new user's set-up without defaultModel and without a provider key (with one, pi's
    default model for that provider is taken and answers: test_model_picker.py): the failed
    prompt names :Pi model, which chooses one (its calls then need the key)."""
    fake = FakeOpenAI(Script())
    fake.start()
    no_model = {k: v for k, v in settings(fake).items() if k != "defaultModel"}
    n = launch(fake=fake, settings=no_model, cmd_env={"OPENAI_API_KEY": ""})
    n.lua(
        "_G.errors = {}; local notify = vim.notify; vim.notify = function(m, l, o)"
        " if l == vim.log.levels.ERROR then table.insert(_G.errors, m) end; return notify(m, l, o) end"
    )
    open_chat(n)
    send(n, "hello")
    hinted = n.wait(
        "for _, m in ipairs(_G.errors) do if m:find(':Pi model', 1, true) then return m end end",
        60,
    )
    assert "No model selected" in hinted
    n.lua("vim.wait(1000)")  # the daemon's error event for the same failure is not shown again
    assert [m for m in n.lua("return _G.errors") if "No model selected" in m] == [hinted]
    n.lua(
        "vim.ui.select = function(items, _, cb) for _, m in ipairs(items) do"
        " if m.id == 'openai/fake-model' then return cb(m) end end end"
    )
    n.nvim.command("Pi model")
    # the first model list may wait for litellm's import: slow on a loaded machine
    n.wait("return require('pi_lsp').status():find('fake%-model') ~= nil", 90)


def test_buffers_without_a_filetype_are_attached(launch: Any) -> None:
    n = launch(Script())
    (n.root / "NOTES").write_text("plain text\n")
    n.nvim.command("edit NOTES")
    assert n.lua("return vim.bo.filetype") == ""
    n.wait("return #vim.lsp.get_clients({ bufnr = 0, name = 'pi_lsp' }) == 1", 15)


def _streaming(n: Nvim) -> None:
    n.wait("local s = require('pi_lsp.state').session; return s ~= nil and s.isStreaming")


def test_steer_and_follow_up_while_streaming(launch: Any) -> None:
    slow = Turn(text="part " * 150, chunk_size=3, chunk_delay=0.02)
    n = launch(Script(turns=[slow, Turn(text="Steered answer."), Turn(text="Follow-up answer.")]))
    open_chat(n)
    send(n, "start")
    _streaming(n)
    wait_chat(n, "part part")
    # <C-s> in insert mode steers, <M-CR> queues a follow-up
    n.lua(
        "local c = require('pi_lsp.chat'); vim.api.nvim_set_current_win(c.input_win);"
        " vim.api.nvim_buf_set_lines(c.input_buf, 0, -1, false, {'steer this'})"
    )
    n.nvim.input("A<C-s>")
    n.wait(
        "return vim.api.nvim_buf_get_lines(require('pi_lsp.chat').input_buf, 0, -1, false)[1] == ''"
    )
    n.lua(
        "vim.api.nvim_buf_set_lines(require('pi_lsp.chat').input_buf, 0, -1, false, {'and then this'})"
    )
    n.nvim.input("<Esc><M-CR>")
    n.wait(
        "return vim.api.nvim_buf_get_lines(require('pi_lsp.chat').input_buf, 0, -1, false)[1] == ''"
    )
    wait_idle(n)
    wait_chat(n, "Follow-up answer.")
    text = chat_text(n)
    assert text.index("steer this") < text.index("Steered answer.") < text.index("and then this")
    bodies = [str(b) for b in n.fake.bodies]
    assert any("steer this" in b for b in bodies) and any("and then this" in b for b in bodies)


def test_compact_rename_thinking_and_the_winbar(launch: Any) -> None:
    fake = FakeOpenAI(
        Script(
            turns=[Turn(text="One."), Turn(text="Two.")],
            default=Turn(text="## Goal\nThe compacted summary."),
        )
    )
    fake.start()
    n = launch(fake=fake, settings={**settings(fake), "compaction": {"keepRecentTokens": 1}})
    open_chat(n)
    send(n, "first")
    wait_idle(n)
    send(n, "second")
    wait_idle(n, 2)
    n.nvim.command("Pi compact the goal")
    wait_chat(n, "### Compaction")
    row = line_of(n, "### Compaction")
    n.lua("vim.api.nvim_set_current_win(require('pi_lsp.chat').win)")
    assert n.lua("return vim.fn.foldclosed(...)", row) == row
    assert any("the goal" in str(b) for b in n.fake.bodies)
    n.nvim.command("Pi rename My session")
    n.wait("return require('pi_lsp.state').session.sessionName == 'My session'")
    n.nvim.command("Pi model openai/fake-model-2")
    n.wait("return require('pi_lsp').status():find('fake%-model%-2') ~= nil")
    n.nvim.command("Pi thinking high")
    n.wait("return require('pi_lsp.state').session.thinkingLevel == 'high'")
    winbar = n.lua("return vim.wo[require('pi_lsp.chat').win].winbar")
    assert "pi_lsp" in winbar and "status()" in winbar
    rendered = n.lua(
        "return vim.api.nvim_eval_statusline(vim.wo[require('pi_lsp.chat').win].winbar,"
        " { winid = require('pi_lsp.chat').win, use_winbar = true }).str"
    )
    assert rendered.startswith("fake-model-2 (high) · ") and "$" in rendered

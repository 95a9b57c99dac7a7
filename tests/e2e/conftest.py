"""The real daemon as a subprocess, driven by a pytest-lsp client, with the scripted provider."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script

VSCODE_CAPABILITIES = T.ClientCapabilities(
    workspace=T.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=T.WorkspaceEditClientCapabilities(
            document_changes=True,
            resource_operations=[T.ResourceOperationKind.Create],
            change_annotation_support=T.ChangeAnnotationsSupportOptions(groups_on_label=True),
        ),
        workspace_folders=True,
        configuration=True,
    ),
    window=T.WindowClientCapabilities(work_done_progress=True),
    general=T.GeneralClientCapabilities(position_encodings=[T.PositionEncodingKind.Utf16]),
)
"""What VS Code announces for what the daemon uses."""

NEOVIM_CAPABILITIES = T.ClientCapabilities(
    workspace=T.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=T.WorkspaceEditClientCapabilities(
            resource_operations=[
                T.ResourceOperationKind.Rename,
                T.ResourceOperationKind.Create,
                T.ResourceOperationKind.Delete,
            ]
        ),
        workspace_folders=True,
        configuration=True,
    ),
    window=T.WindowClientCapabilities(work_done_progress=True),
    general=T.GeneralClientCapabilities(
        position_encodings=[
            T.PositionEncodingKind.Utf8,
            T.PositionEncodingKind.Utf16,
            T.PositionEncodingKind.Utf32,
        ]
    ),
)
"""What Neovim 0.11 announces (``make_client_capabilities()``): UTF-8 positions preferred, no
``documentChanges`` (so edits go out as unversioned ``changes``) and no change annotations."""


@dataclass
class Editor:
    """The test client plus what it recorded."""

    client: LanguageClient
    root: Path
    agent_dir: Path
    fake: FakeOpenAI
    events: list[dict[str, Any]] = field(default_factory=list)
    edits: list[Any] = field(default_factory=list)
    permission_requests: list[dict[str, Any]] = field(default_factory=list)
    apply_answer: bool = True
    permission_answer: str = "allowOnce"
    on_apply: Any = None
    """Optional ``(params) -> ApplyWorkspaceEditResult`` replacing the default answer."""
    on_permission: Any = None
    """Optional ``(params) -> None`` called before a permission request is answered."""

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        result = await self.client.protocol.send_request_async(method, params)
        return _plain(result)

    async def wait_for(
        self, kind: str, count: int = 1, timeout: float = 20
    ) -> list[dict[str, Any]]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = [e for e in self.events if e["event"]["type"] == kind]
            if len(found) >= count:
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(
                    f"no {kind} event in {timeout} s: {[e['event']['type'] for e in self.events]}"
                )
            await asyncio.sleep(0.02)


def _plain(value: Any) -> Any:
    """pytest-lsp hands custom results back as namedtuples: turn them into dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


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
    agent_dir: Path,
    fake: FakeOpenAI,
    capabilities: T.ClientCapabilities = VSCODE_CAPABILITIES,
    settings: dict[str, Any] | None = None,
    *,
    no_folder: bool = False,
) -> Editor:
    """Initialize with ``root`` as the one workspace folder (``no_folder``: ``rootUri: null``
    and no folders, what an editor sends for a lone file)."""
    editor = Editor(client=client, root=root, agent_dir=agent_dir, fake=fake)

    @client.feature("pi/event")
    def on_event(params: Any) -> None:
        editor.events.append(_plain(params))

    @client.feature(T.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        if editor.on_apply is not None:
            result: T.ApplyWorkspaceEditResult = editor.on_apply(params)
            return result
        editor.edits.append(params.edit)
        if not editor.apply_answer:
            return T.ApplyWorkspaceEditResult(applied=False, failure_reason="rejected by the test")
        return T.ApplyWorkspaceEditResult(applied=True)

    @client.feature("pi/requestPermission")
    def on_permission(params: Any) -> dict[str, str]:
        editor.permission_requests.append(_plain(params))
        if editor.on_permission is not None:
            editor.on_permission(_plain(params))
        return {"decision": editor.permission_answer}

    options = {
        "apiBase": fake.base_url,
        "defaultModel": "openai/fake-model",
        "models": {"openai/fake-model": {"contextWindow": 100_000}},
        "retry": {"baseDelayMs": 10},
        **(settings or {}),
    }
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
        return await start_editor(
            client, root, agent_dir, fake, capabilities, settings, no_folder=no_folder
        )

    yield start_one
    for client, fake in reversed(started):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()
        fake.stop()

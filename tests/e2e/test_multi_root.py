"""Multi-root workspaces end to end: each workspace folder is a cwd with its own sessions,
AGENTS.md context and ``.pi/settings.json``, and folders come and go at runtime.

The folders' project settings differ in ``defaultThinkingLevel`` (the editor's overrides, which
win over project files, leave it alone), so the setting is seen in each session's state and in
the ``reasoning_effort`` the provider receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pytest_lsp import ClientServerConfig

from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from pi_lsp.session.paths import session_dir
from tests.deadlines import HANG
from tests.e2e.conftest import VSCODE_CAPABILITIES, server_env
from tests.e2e.rpc_checks import call, exact_json, killed_on_failure, rpc_error
from tests.lsp_editor import Editor

THINKING = {"alpha": "high", "beta": "low", "gamma": "minimal"}
"""Each folder's ``defaultThinkingLevel`` in its own ``.pi/settings.json``."""

OVERRIDES = {
    "defaultModel": "openai/fake-model",
    "models": {"openai/fake-model": {"contextWindow": 100_000, "reasoning": True}},
    "retry": {"baseDelayMs": 10},
    "editMode": "disk",
}


def marker(name: str) -> str:
    """Text that only the folder ``name``'s AGENTS.md contains."""
    return f"{name.upper()}-ONLY-CONTEXT-7F3"


def make_folder(base: Path, name: str) -> Path:
    """A workspace folder with its own AGENTS.md and project settings."""
    folder = base / name
    (folder / ".pi").mkdir(parents=True)
    (folder / "AGENTS.md").write_text(f"# {name}\n\nAlways mention {marker(name)}.\n")
    settings = {"defaultThinkingLevel": THINKING[name]}
    (folder / ".pi" / "settings.json").write_text(json.dumps(settings))
    return folder


def wsfolder(path: Path) -> T.WorkspaceFolder:
    """The LSP workspace folder for a directory."""
    return T.WorkspaceFolder(uri=path.as_uri(), name=path.name)


@contextlib.asynccontextmanager
async def multi_root(folders: list[Path], agent_dir: Path) -> AsyncIterator[Editor]:
    """The real daemon initialized with several workspace folders (the ``start`` fixture
    announces one), answering ``ok`` to any prompt unless turns are pushed."""
    with FakeOpenAI(Script(default=Turn(text="ok"))) as fake:
        config = ClientServerConfig(
            server_command=[sys.executable, "-m", "pi_lsp", "--stdio"],
            server_env=server_env(agent_dir),
        )
        client = await config.start()
        editor = exact_json(Editor(client, folders[0], fake))
        try:
            with killed_on_failure(editor):
                await asyncio.wait_for(
                    client.initialize_session(
                        T.InitializeParams(
                            capabilities=VSCODE_CAPABILITIES,
                            root_uri=folders[0].as_uri(),
                            workspace_folders=[wsfolder(f) for f in folders],
                            initialization_options={"pi": {"apiBase": fake.base_url, **OVERRIDES}},
                        )
                    ),
                    30,
                )
                yield editor
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 10)
            await client.stop()


async def turn(editor: Editor, session_id: str, text: str) -> JsonObject:
    """Prompt a session, wait for its ``agent_end`` and return the request body the provider got
    for it (the one whose last message is the prompt)."""
    ended = len(ends(editor, session_id))
    await call(editor, "pi/session/prompt", {"sessionId": session_id, "text": text})
    deadline = asyncio.get_running_loop().time() + HANG
    while len(ends(editor, session_id)) == ended:
        assert asyncio.get_running_loop().time() < deadline, f"no agent_end for {text!r}"
        await asyncio.sleep(0.02)
    bodies = [b for b in editor.fake.bodies if text in message_text(b["messages"][-1])]
    assert len(bodies) == 1, f"{len(bodies)} requests end with {text!r}"
    return bodies[0]


def ends(editor: Editor, session_id: str) -> list[dict[str, Any]]:
    """The session's ``agent_end`` events so far (other sessions' events are left out)."""
    return [
        e
        for e in editor.events
        if e["sessionId"] == session_id and e["event"]["type"] == "agent_end"
    ]


def system_prompt(body: JsonObject) -> str:
    """The system message's text of a provider request."""
    first = body["messages"][0]
    assert first["role"] == "system", first
    return message_text(first)


async def new_session(editor: Editor, folder: Path, agent_dir: Path) -> dict[str, Any]:
    """``pi/session/new`` in ``folder``: checks the state belongs to that folder."""
    state: dict[str, Any] = await call(editor, "pi/session/new", {"folder": folder.as_uri()})
    assert state["cwd"] == str(folder) and state["folder"] == folder.as_uri(), state
    assert Path(state["sessionFile"]).parent == session_dir(str(folder), agent_dir), state
    assert state["thinkingLevel"] == THINKING[folder.name], state
    return state


async def listed(editor: Editor, folder: Path) -> list[str]:
    """Ids of ``pi/sessions/list`` for a folder."""
    result = await call(editor, "pi/sessions/list", {"folder": folder.as_uri()})
    return [s["id"] for s in result["sessions"]]


async def test_each_folder_has_its_own_sessions_context_and_settings(tmp_path: Path) -> None:
    """Two folders, one session each: separate session directories and lists, each prompt
    carries only its own folder's AGENTS.md, and each folder's thinking level applies."""
    alpha, beta = make_folder(tmp_path, "alpha"), make_folder(tmp_path, "beta")
    agent = tmp_path / "agent"
    async with multi_root([alpha, beta], agent) as editor:
        states = {f.name: await new_session(editor, f, agent) for f in (alpha, beta)}
        assert session_dir(str(alpha), agent) != session_dir(str(beta), agent)
        for folder, other in ((alpha, beta), (beta, alpha)):
            session = states[folder.name]["sessionId"]
            body = await turn(editor, session, f"hello from {folder.name}")
            prompt = system_prompt(body)
            assert marker(folder.name) in prompt and marker(other.name) not in prompt
            assert body["reasoning_effort"] == THINKING[folder.name], body
            assert Path(states[folder.name]["sessionFile"]).is_file()
        for folder in (alpha, beta):
            assert await listed(editor, folder) == [states[folder.name]["sessionId"]]
            files = list(session_dir(str(folder), agent).iterdir())
            assert [f.name for f in files] == [Path(states[folder.name]["sessionFile"]).name]
        # without `folder` the first folder is used (docs/protocol.md, Workspace folders)
        default = await call(editor, "pi/sessions/list", {})
        assert [s["id"] for s in default["sessions"]] == [states["alpha"]["sessionId"]]


async def test_folders_added_and_removed_at_runtime(tmp_path: Path) -> None:
    """``workspace/didChangeWorkspaceFolders``: an added folder gets sessions with its own
    context and settings; a removed one is an unknown folder (-32008) for new requests while its
    open session stays usable; writes follow the current folder list (inside any workspace
    folder: no permission asked; inside a removed one: asked)."""
    alpha, beta, gamma = (make_folder(tmp_path, n) for n in ("alpha", "beta", "gamma"))
    agent = tmp_path / "agent"
    async with multi_root([alpha, beta], agent) as editor:
        in_alpha = (await new_session(editor, alpha, agent))["sessionId"]
        in_beta = (await new_session(editor, beta, agent))["sessionId"]
        editor.client.workspace_did_change_workspace_folders(
            T.DidChangeWorkspaceFoldersParams(
                event=T.WorkspaceFoldersChangeEvent(
                    added=[wsfolder(gamma)], removed=[wsfolder(beta)]
                )
            )
        )
        in_gamma = (await new_session(editor, gamma, agent))["sessionId"]  # handled in order
        body = await turn(editor, in_gamma, "hello from gamma")
        prompt = system_prompt(body)
        assert marker("gamma") in prompt and marker("alpha") not in prompt
        assert body["reasoning_effort"] == THINKING["gamma"]
        assert await listed(editor, gamma) == [in_gamma]

        for method in ("pi/session/new", "pi/sessions/list"):
            error = await rpc_error(editor, method, {"folder": beta.as_uri()})
            assert error.code == -32008 and beta.as_uri() in error.message, error
        # "Removing a folder leaves its open sessions open until they are closed."
        body = await turn(editor, in_beta, "beta after removal")
        assert marker("beta") in system_prompt(body)

        # The alpha session was opened before gamma was added and beta removed.
        for number, target in enumerate((gamma / "from-alpha.txt", beta / "from-alpha.txt")):
            editor.fake.push(
                tool_turn("write", {"path": str(target), "content": "x"}),
                Turn(text="written"),
            )
            await turn(editor, in_alpha, f"write file number {number}")
            assert target.read_text() == "x"
        asked = [(r["kind"], r["detail"]) for r in editor.permission_requests]
        outside = os.path.realpath(beta / "from-alpha.txt")  # the daemon reports real paths
        assert asked == [("writeOutsideWorkspace", outside)], asked

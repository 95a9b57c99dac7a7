"""Folders and the settings of the sessions open in them (no editor, no model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp.daemon.workspaces import UnknownFolderError, Workspaces


def folder(tmp_path: Path, name: str, thinking: str) -> tuple[str, str]:
    """A folder with a project settings file naming its thinking level."""
    root = tmp_path / name
    (root / ".pi").mkdir(parents=True)
    (root / ".pi" / "settings.json").write_text(json.dumps({"defaultThinkingLevel": thinking}))
    return root.as_uri(), str(root)


async def test_a_removed_folders_open_session_keeps_that_folders_settings(tmp_path: Path) -> None:
    workspaces = Workspaces(lambda *_: None, agent=tmp_path / "agent")
    (a_uri, _), (b_uri, b_path) = folder(tmp_path, "a", "low"), folder(tmp_path, "b", "high")
    workspaces.set_folders([(a_uri, str(tmp_path / "a")), (b_uri, b_path)])
    live = await workspaces.new_session(b_uri)
    assert live.agent.config.settings.defaultThinkingLevel == "high"
    workspaces.remove_folder(b_uri)
    with pytest.raises(UnknownFolderError):
        workspaces.folder(b_uri)
    # The editor's settings change: every session re-reads its own folder's files, and the
    # removed folder's session must not take the first folder's ("low").
    problems = workspaces.configure({"compaction": {"keepRecentTokens": 1234}})
    assert problems == []
    settings = live.agent.config.settings
    assert settings.defaultThinkingLevel == "high"
    assert settings.compaction.keep_recent_tokens == 1234
    assert workspaces.workspace_of(live).cwd == b_path
    # Its folder comes back with other settings: the session follows the folder.
    (Path(b_path) / ".pi" / "settings.json").write_text('{"defaultThinkingLevel": "minimal"}')
    workspaces.add_folder(b_uri, b_path)
    workspaces.reload_settings()
    assert live.agent.config.settings.defaultThinkingLevel == "minimal"
    await workspaces.close_all()


async def test_closing_a_session_removes_its_bash_output_files(tmp_path: Path) -> None:
    workspaces = Workspaces(lambda *_: None, agent=tmp_path / "agent")
    uri, path = folder(tmp_path, "a", "low")
    workspaces.set_folders([(uri, path)])
    live = await workspaces.new_session(uri)
    bash = live.agent.config.tools["bash"]
    result = await bash.execute({"command": "head -c 200000 /dev/zero | tr '\\0' 'z'"})
    output = Path(result.details["fullOutputPath"]) if result.details else None
    assert output is not None and output.stat().st_size == 200000
    await workspaces.close(live.id)
    assert not output.exists()


async def test_with_no_folder_the_gate_has_no_root(tmp_path: Path) -> None:
    workspaces = Workspaces(lambda *_: None, agent=tmp_path / "agent")
    live = await workspaces.new_session(None)
    gate = live.agent.config.permissions
    assert gate is not None and list(gate.roots) == []  # was the daemon's cwd, often "/"
    await workspaces.close_all()

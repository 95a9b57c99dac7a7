"""Where sessions live: pi's folder per cwd, or pi 1.6.0's one custom folder."""

from __future__ import annotations

import os
from pathlib import Path

from pi_lsp.session.paths import (
    SESSION_DIR_ENV,
    custom_session_dir,
    default_session_dir,
    same_cwd,
    session_dir,
    shared_folder,
)


def test_the_environment_wins_over_the_setting_and_both_expand_the_home() -> None:
    home = os.path.expanduser("~")
    assert custom_session_dir("/w", "~/s", env={}) == Path(home) / "s"
    assert custom_session_dir("/w", "~/s", env={SESSION_DIR_ENV: "/e"}) == Path("/e")
    assert custom_session_dir("/w", "rel/dir", env={}) == Path("/w/rel/dir")  # from the project
    assert custom_session_dir("/w", None, env={}) is None
    assert custom_session_dir("/w", "", env={SESSION_DIR_ENV: ""}) is None


def test_session_dir_falls_back_to_pis_folder_per_cwd(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    assert session_dir("/w/p", agent, None, env={}) == agent / "sessions" / "--w-p--"
    assert session_dir("/w/p", agent, "/c", env={}) == Path("/c")
    assert not shared_folder(default_session_dir("/w/p", agent), "/w/p", agent)
    assert shared_folder(Path("/c"), "/w/p", agent)


def test_same_cwd_compares_absolute_paths() -> None:
    assert same_cwd("/w/p/", "/w/p")
    assert same_cwd("/w/x/../p", "/w/p")
    assert not same_cwd("", "/w/p") and not same_cwd(None, "/w/p") and not same_cwd("/w", "/w/p")

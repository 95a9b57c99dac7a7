"""Finding a session file by its id (ACP names sessions by id, pi's files by path).

pi names its files ``<timestamp>_<id>.jsonl`` in the cwd's folder; a file copied or renamed
there is still found by its header. Other folders are searched last (by name only).
"""

from __future__ import annotations

import glob
from pathlib import Path

from pi_lsp.daemon.workspaces import UnknownSessionError
from pi_lsp.session.listing import SessionLister
from pi_lsp.session.paths import session_dir, sessions_root


def find_session_file(session_id: str, cwd: str, agent: Path, lister: SessionLister) -> Path:
    """The file of session ``session_id``; raises :class:`UnknownSessionError`."""
    if session_id and "/" not in session_id and not any(c in session_id for c in "*?[]"):
        folder = session_dir(cwd, agent)
        named = sorted(glob.glob(str(folder / f"*_{session_id}.jsonl")))
        if named:
            return Path(named[0])
        for info in lister.list_cwd(cwd, agent):
            if info.id == session_id:
                return Path(info.path)
        anywhere = sorted(glob.glob(str(sessions_root(agent) / "*" / f"*_{session_id}.jsonl")))
        if anywhere:
            return Path(anywhere[0])
    shown = session_id if len(session_id) <= 100 else session_id[:100] + "…"
    raise UnknownSessionError(f"Unknown session: {shown} (not in pi's sessions for {cwd})")

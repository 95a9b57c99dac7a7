"""A 9 MB session file of garbage lines neither blocks the daemon nor bloats it (issue 9, item 6).

Opening or listing it is CPU work of a second or more; it runs in a worker thread, so a request
sent right after it is answered first (an ordering, not a timing, check: with the work on the
event loop the second request could only be read once the first was done).
"""

from __future__ import annotations

from pathlib import Path

from pi_lsp.devtools.builders import write_garbage_session
from tests.e2e.raw_client import initialize, request, stdio_daemon


def test_opening_and_listing_a_garbage_file_leave_the_daemon_answering(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    folder = tmp_path / "agent" / "sessions" / f"--{str(root).strip('/').replace('/', '-')}--"
    path = write_garbage_session(folder / "2026-01-01T00-00-00-000Z_garbage.jsonl", str(root))
    with stdio_daemon(tmp_path) as daemon:
        daemon.send(initialize(0, root))
        daemon.answer(0)
        daemon.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        for slow in (
            request(1, "pi/session/open", {"path": str(path)}),
            request(3, "pi/sessions/list", {}),
        ):
            quick = request(slow["id"] + 1, "pi/session/state", {"sessionId": "nope"})
            daemon.send(slow)
            daemon.send(quick)
            order = []
            while len(order) < 2:
                message = daemon.receive()
                assert message is not None, "no answer"
                if "method" not in message:
                    order.append(message)
            assert [m["id"] for m in order] == [quick["id"], slow["id"]], [
                str(m)[:200] for m in order
            ]
            assert "result" in order[1], order[1]
        sessions = order[1]["result"]["sessions"]
        assert [s["path"] for s in sessions] == [str(path)]

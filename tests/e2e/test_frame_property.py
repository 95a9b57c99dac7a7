"""Property: whatever bytes arrive, the real daemon answers the next good request or exits cleanly.

Each hypothesis example is a few chunks (good frames, frames with wrong or absurd lengths, odd
header blocks, bodies that are not JSON or not JSON-RPC, batches, HTTP requests, random bytes;
see ``tests/unit/protocol/strategies.py``) written at once to one long-lived daemon's stdin,
then padding that completes any frame left open, then a probe request. The probe must be
answered within the timeout (else the daemon hung), and the daemon must still be running (a
crash fails the example). Every few examples the daemon is stopped with ``shutdown``/``exit``
and must exit with status 0; a new one serves the next examples. Bounded: a fixed number of
examples, each bounded by the timeout; no shrinking (the daemon's state carries across
examples, so a shrunk example would not replay the same).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

from tests.e2e.raw_client import TIMEOUT, StdioDaemon, initialize, request
from tests.unit.protocol.strategies import examples, resync_padding

EXAMPLES = 120
PER_DAEMON = 40


class Daemons:
    """One daemon at a time, replaced every :data:`PER_DAEMON` examples."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.stderr = (tmp_path / "stderr.log").open("ab")
        self.daemon: StdioDaemon | None = None
        self.served = 0
        self.ids = itertools.count()

    def current(self) -> StdioDaemon:
        if self.daemon is None:
            self.daemon = StdioDaemon(self.tmp_path / "agent", self.stderr)
            self.daemon.send(initialize("init", self.tmp_path))
            assert "result" in self.daemon.answer("init")
        return self.daemon

    def probe(self, daemon: StdioDaemon) -> None:
        msg_id = f"probe-{next(self.ids)}"
        daemon.send(resync_padding())
        daemon.send(request(msg_id, "pi/session/state", {"sessionId": "nope"}))
        answer = daemon.answer(msg_id, TIMEOUT)
        assert answer["error"]["code"] in (-32001, -32600), answer  # -32600 after a shutdown
        assert daemon.process.poll() is None, "the daemon exited"

    def retire(self) -> None:
        daemon, self.daemon, self.served = self.daemon, None, 0
        if daemon is None:
            return
        daemon.send(request("bye", "shutdown"))
        daemon.answer("bye")
        daemon.send({"jsonrpc": "2.0", "method": "exit"})
        assert daemon.process.wait(TIMEOUT) in (0, 1)  # 0, or 1 if an example sent shutdown
        # ("bye" is then refused with -32600 and exit follows a shutdown that was not ours)


def test_random_frames_never_crash_or_hang_the_daemon(tmp_path: Path) -> None:
    daemons = Daemons(tmp_path)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(examples)
    def one(chunks: list[bytes]) -> None:
        daemon = daemons.current()
        daemon.send(b"".join(chunks))
        daemons.probe(daemon)
        daemons.served += 1
        if daemons.served >= PER_DAEMON:
            daemons.retire()

    try:
        one()
        daemons.retire()
    finally:
        if daemons.daemon is not None and daemons.daemon.process.poll() is None:
            daemons.daemon.process.kill()
        daemons.stderr.close()
    log = (tmp_path / "stderr.log").read_text(errors="replace")
    assert "handling a message failed" not in log  # the read loop's catch-all never fired
    raised = set(re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception)):", log, re.MULTILINE))
    assert raised <= {"pygls.exceptions.JsonRpcException"}, raised  # only answered errors

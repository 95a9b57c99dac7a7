"""Protocol input (issue 9): the daemon's own frame reader against pygls's, and a garbage file.

1. Framing: 20,000 small requests as one byte stream, in 64 KiB chunks, read by pygls's
   ``run_async`` loop (what served the daemon before) and by ``FrameParser`` plus the envelope
   check (what serves it now), both handing each message to a no-op; µs per message and the ratio.
2. End to end: a real daemon (this tree, and ``main``) answers 2,000 pipelined
   ``pi/session/state`` requests; seconds from the first write to the last answer.
3. A 9 MB session file of garbage lines opened with ``SessionStore.open``, in a subprocess each
   for this tree and for ``git`` ref ``main`` (exported to a temporary directory): seconds,
   peak RSS and the number of diagnostics kept.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import ROOT, report

from pi_lsp.devtools.builders import write_garbage_session
from pi_lsp.protocol.framing import FrameParser, Message, check

MESSAGES = 20_000
CHUNK = 64 * 1024


def _stream() -> bytes:
    frames = []
    for number in range(MESSAGES):
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": number,
                "method": "pi/session/state",
                "params": {"sessionId": "s"},
            }
        ).encode()
        frames.append(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return b"".join(frames)


class _Chunks:
    """pygls's AsyncReader interface over bytes (readline / readexactly)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    async def readline(self) -> bytes:
        end = self.data.find(b"\n", self.at)
        end = len(self.data) if end < 0 else end + 1
        line, self.at = self.data[self.at : end], end
        return line

    async def readexactly(self, n: int) -> bytes:
        part, self.at = self.data[self.at : self.at + n], self.at + n
        return part


class _Sink:
    def __init__(self) -> None:
        self.count = 0

    def structure_message(self, data: dict[str, object]) -> dict[str, object]:
        return data

    def handle_message(self, message: object) -> None:
        self.count += 1


def _pygls(data: bytes) -> float:
    from pygls.io_ import run_async

    sink = _Sink()
    start = time.perf_counter()
    asyncio.run(run_async(threading.Event(), _Chunks(data), sink))  # type: ignore[arg-type]
    assert sink.count == MESSAGES
    return time.perf_counter() - start


def _ours(data: bytes) -> float:
    sink = _Sink()
    parser = FrameParser()
    start = time.perf_counter()
    for at in range(0, len(data), CHUNK):
        for event in parser.feed(data[at : at + CHUNK]):
            assert isinstance(event, Message)
            sink.handle_message(check(event.value))
    assert sink.count == MESSAGES
    return time.perf_counter() - start


OPEN_GARBAGE = """
import resource, sys, time
from pi_lsp.session import SessionStore
start = time.perf_counter()
store = SessionStore.open(sys.argv[1])
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
      len(store.diagnostics))
"""


def _open_in(tree: Path, path: Path) -> tuple[float, int, int]:
    result = subprocess.run(
        [sys.executable, "-c", OPEN_GARBAGE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
    )
    seconds, rss, diagnostics = result.stdout.split()
    return float(seconds), int(rss), int(diagnostics)


PIPELINED = 2_000


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_answers(stdout: object, ids: set[object]) -> None:
    buffer = b""
    read = stdout.read1  # type: ignore[attr-defined]
    while ids:
        while (end := buffer.find(b"\r\n\r\n")) < 0:
            buffer += read(1 << 16)
        head = buffer[:end].decode()
        length = int(head.lower().split("content-length:")[1].split("\r\n")[0])
        while len(buffer) < end + 4 + length:
            buffer += read(1 << 16)
        message = json.loads(buffer[end + 4 : end + 4 + length])
        buffer = buffer[end + 4 + length :]
        ids.discard(message.get("id"))


def _pipelined(tree: Path, agent: Path) -> float:
    env = {
        "PYTHONPATH": str(tree),
        "PATH": "/usr/bin:/bin",
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_LSP_PREWARM": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", "--stdio"],
        cwd=tree,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    init = {
        "jsonrpc": "2.0",
        "id": "i",
        "method": "initialize",
        "params": {"processId": None, "capabilities": {}, "rootUri": tree.as_uri()},
    }
    process.stdin.write(
        _frame(init)
        + _frame({"jsonrpc": "2.0", "id": "n", "method": "pi/session/new", "params": {}})
    )
    process.stdin.flush()
    buffer = b""
    while b'"sessionId"' not in buffer:
        buffer += process.stdout.read1(1 << 16)
    session = buffer.split(b'"sessionId":')[1].split(b'"')[1].decode()
    requests = b"".join(
        _frame(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "pi/session/state",
                "params": {"sessionId": session},
            }
        )
        for n in range(PIPELINED)
    )
    start = time.perf_counter()
    writer = threading.Thread(target=lambda: (process.stdin.write(requests), process.stdin.flush()))  # type: ignore[union-attr]
    writer.start()
    _read_answers(process.stdout, set(range(PIPELINED)))
    elapsed = time.perf_counter() - start
    writer.join()
    process.kill()
    process.wait()
    return elapsed


def main() -> None:
    data = _stream()
    old = min(_pygls(data) for _ in range(3))
    new = min(_ours(data) for _ in range(3))
    report("framing: pygls run_async per message", old / MESSAGES * 1e6, "µs")
    report("framing: FrameParser + check per message", new / MESSAGES * 1e6, "µs")
    print(f"framing {MESSAGES} requests ({len(data) / 1e6:.1f} MB), best of 3:")
    print(f"  pygls run_async        {old / MESSAGES * 1e6:6.1f} µs/message")
    print(
        f"  FrameParser + check    {new / MESSAGES * 1e6:6.1f} µs/message  ({old / new:.2f}× pygls's speed)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = write_garbage_session(Path(tmp) / "garbage.jsonl", "/w")
        rows = [("this tree", ROOT)]
        main_tree = Path(tmp) / "main"
        main_tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", "main", "pi_lsp"], cwd=ROOT, capture_output=True, check=False
        )
        if archive.returncode == 0:
            subprocess.run(["tar", "-x", "-C", str(main_tree)], input=archive.stdout, check=True)
            rows.append(("main", main_tree))
        print(f"{PIPELINED} pipelined pi/session/state requests to a real daemon, best of 3:")
        for name, tree in rows:
            seconds = min(_pipelined(tree, Path(tmp) / f"agent-{name}") for _ in range(3))
            print(f"  {name:10} {seconds:6.2f} s  ({seconds / PIPELINED * 1e6:.0f} µs/request)")
            if name == "this tree":
                report("pipelined pi/session/state per request", seconds / PIPELINED * 1e6, "µs")
        print(f"SessionStore.open of a {path.stat().st_size / 1e6:.1f} MB file of garbage lines:")
        for name, tree in rows:
            seconds, rss, diagnostics = _open_in(tree, path)
            if name == "this tree":
                report("open of the garbage file", seconds * 1000, "ms")
                report("open of the garbage file: peak RSS", rss / 1e6, "MB")
            print(
                f"  {name:10} {seconds:6.2f} s  peak RSS {rss / 1e6:6.0f} MB  {diagnostics:7} diagnostics"
            )


if __name__ == "__main__":
    main()

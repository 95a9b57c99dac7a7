"""A raw Content-Length client for the real daemon: bytes in, parsed messages out, with timeouts.

pytest-lsp's client only sends well-formed frames; the protocol tests need to send anything
(broken headers, wrong lengths, batches, HTTP) over the daemon's stdin or a TCP socket, and to
tell "answered", "said nothing" and "exited" apart without ever hanging.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.deadlines import HANG
from tests.e2e.conftest import server_env

TIMEOUT = HANG
"""Seconds before an expected answer counts as missing (the daemon hung); a failure bound."""


def frame(message: Any) -> bytes:
    """One frame: ``message`` as JSON (or bytes as they are) behind its Content-Length."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: Any, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    """A JSON-RPC request (``params`` left out when None)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return message


def initialize(msg_id: Any = 0, root: Path | None = None, **options: Any) -> dict[str, Any]:
    """``initialize`` with no capabilities (and ``initializationOptions`` when given)."""
    params: dict[str, Any] = {"processId": None, "capabilities": {}}
    if root is not None:
        params["rootUri"] = root.as_uri()
    if options:
        params["initializationOptions"] = options
    return request(msg_id, "initialize", params)


def _read(fd: int) -> bytes:
    """What is there to read; b"" at the end (a reset connection has ended too: the daemon
    closed it with the client's bytes unread)."""
    try:
        return os.read(fd, 1 << 16)
    except ConnectionResetError:
        return b""


class Reader:
    """Parses the daemon's output (always well-formed frames) from a file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def _message(self) -> dict[str, Any] | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.buffer[:end].decode("ascii").split("\r\n")
        length = next(int(h.split(":")[1]) for h in head if h.lower().startswith("content-length"))
        if len(self.buffer) < end + 4 + length:
            return None
        body, self.buffer = self.buffer[end + 4 : end + 4 + length], self.buffer[end + 4 + length :]
        message: dict[str, Any] = json.loads(body)
        return message

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any] | None:
        """The next message; None when nothing came within ``timeout`` or the stream ended."""
        deadline = time.monotonic() + timeout
        while (message := self._message()) is None:
            remaining = deadline - time.monotonic()
            if self.closed or remaining <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                return None
            data = _read(self.fd)
            if not data:
                self.closed = True
            self.buffer += data
        return message

    def answer(self, msg_id: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The response to ``msg_id`` (notifications and other responses are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.0, deadline - time.monotonic()))
            assert message is not None, f"no answer to id {msg_id!r} in {timeout} s"
            if "method" not in message and message.get("id") == msg_id:
                return message

    def answers(self, ids: set[Any], timeout: float = TIMEOUT) -> dict[Any, dict[str, Any]]:
        """The responses to every id in ``ids``, in whatever order they come."""
        deadline = time.monotonic() + timeout
        found: dict[Any, dict[str, Any]] = {}
        while set(found) != ids:
            message = self.receive(max(0.0, deadline - time.monotonic()))
            assert message is not None, f"no answer to {ids - set(found)} in {timeout} s"
            if "method" not in message and message.get("id") in ids:
                found[message["id"]] = message
        return found

    def responses(self, timeout: float) -> list[dict[str, Any]]:
        """Every response (not notification) arriving until ``timeout`` passes without one."""
        found = []
        while (message := self.receive(timeout)) is not None:
            if "method" not in message:
                found.append(message)
        return found


class StdioDaemon(Reader):
    """``python -m pi_lsp --stdio`` with raw pipes."""

    def __init__(self, agent_dir: Path, stderr: Any) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pi_lsp", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=server_env(agent_dir),
        )
        assert self.process.stdout is not None
        super().__init__(self.process.stdout.fileno())

    def send(self, data: bytes | dict[str, Any]) -> None:
        """Write raw bytes (or one framed message)."""
        assert self.process.stdin is not None
        self.process.stdin.write(data if isinstance(data, bytes) else frame(data))
        self.process.stdin.flush()

    def stop(self) -> int:
        """Close stdin and wait for the exit status (killing after the timeout)."""
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            return self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the daemon did not exit after its stdin closed") from None


@contextlib.contextmanager
def stdio_daemon(tmp_path: Path) -> Iterator[StdioDaemon]:
    """A daemon on raw pipes, its stderr in ``tmp_path/stderr.log``; killed if still running."""
    with (tmp_path / "stderr.log").open("ab") as stderr:
        daemon = StdioDaemon(tmp_path / "agent", stderr)
    try:
        yield daemon
    finally:
        if daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()


class SocketClient(Reader):
    """A TCP connection to the daemon."""

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        super().__init__(self.socket.fileno())

    def send(self, data: bytes | dict[str, Any]) -> None:
        """Write raw bytes (or one framed message)."""
        self.socket.sendall(data if isinstance(data, bytes) else frame(data))

    def read_all(self, timeout: float = TIMEOUT) -> bytes:
        """Every byte until the daemon closes the connection (fails on a timeout)."""
        deadline = time.monotonic() + timeout
        while not self.closed:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"the daemon kept the connection open for {timeout} s"
            data = _read(self.fd)
            self.closed = not data
            self.buffer += data
        return self.buffer

    def close(self) -> None:
        """Close the connection."""
        self.socket.close()


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick for a throwaway socket)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether a TCP socket listens on ``port`` (Linux's /proc/net tables; no connection made,
    since a probing connection would count as a client)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.rpartition(":")[2], 16) == port:
                return True
    return False


@contextlib.contextmanager
def tcp_daemon(
    tmp_path: Path, token: str | None = "editor-token-0123456789"
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``pi-lsp --tcp PORT`` (``PI_LSP_TOKEN`` set to ``token`` unless None); yields the
    process and port once it listens; stderr in ``tmp_path/stderr.log``."""
    port = free_port()
    env = server_env(tmp_path / "agent")
    env.pop("PI_LSP_TOKEN", None)
    if token is not None:
        env["PI_LSP_TOKEN"] = token
    with (tmp_path / "stderr.log").open("ab") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "pi_lsp", "--tcp", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=env,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not listening(port):
            assert process.poll() is None, f"the daemon exited with {process.returncode}"
            assert time.monotonic() < deadline, "the daemon never listened"
            time.sleep(0.05)
        yield process, port
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

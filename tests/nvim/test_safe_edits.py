"""Safe edits in real Neovim: agent edits land in the unsaved buffer as one undo step, and an
edit computed for an older buffer text is refused while the user types, never applied at
stale positions."""

from __future__ import annotations

import re
from typing import Any

from pi_lsp.devtools.fake_script import Script, ScriptToolCall, Turn
from tests.nvim.conftest import Nvim

OPEN = """
vim.cmd.edit(...)
local buf = vim.api.nvim_get_current_buf()
vim.wait(15000, function()
  local c = vim.lsp.get_clients({ bufnr = buf, name = "pi_lsp" })[1]
  return c ~= nil and c.initialized
end, 20)
return #vim.lsp.get_clients({ bufnr = buf, name = "pi_lsp" })
"""


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
            Turn(
                tool_calls=[
                    ScriptToolCall(
                        name="edit",
                        arguments={"path": "calc.py", "oldText": "abs(a)", "newText": "a"},
                    )
                ]
            ),
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


def test_typing_while_the_agent_edits_never_damages_the_buffer(launch: Any) -> None:
    """60 edits, each a race with the user's typing: refused ones are tool errors, applied ones
    are exact; every line is the user's typing plus either the old or the new text."""
    turns = [
        Turn(
            tool_calls=[
                ScriptToolCall(
                    name="edit",
                    arguments={"path": "race.py", "oldText": f'token{i}"', "newText": f'done{i}"'},
                )
            ]
        )
        for i in range(EDITS)
    ]
    n = launch(Script(turns=[*turns, Turn(text="All done.")]))
    (n.root / "race.py").write_text("".join(f'v{i} = "token{i}"\n' for i in range(EDITS)))
    assert n.lua(OPEN, "race.py") == 1
    n.lua(TYPIST)
    session = prompt(n, "rename every token")
    n.wait_event("agent_end", timeout=120)
    n.lua("_G.typed.stop = true")
    typed = n.lua("vim.wait(100); return _G.typed")
    lines = n.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    results = tool_results(n, session)
    assert len(results) == EDITS

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

"""Another program (the pi CLI takes no lock) appends to the session while this Neovim's turn
runs: the daemon sends ``foreign_entries``; the chat keeps the whole streamed reply, shows a
note naming the other program's entries (``gb`` on one switches to their branch), and the
open tree shows them as a sibling branch, marked, with the leaf still on this turn's reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_lsp.devtools.builders import assistant, tool_turn, user
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from pi_lsp.session import SessionStore
from tests.nvim.test_chat import chat_text, cursor_to, open_chat, send, wait_chat, wait_idle

TREE_LINES = "return vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1, false)"
TREE_MARKS = (
    "local t = require('pi_lsp.tree_view'); local out = {};"
    " for _, m in ipairs(vim.api.nvim_buf_get_extmarks(t.buf, -1, 0, -1, {details = true})) do"
    " if m[4].virt_text then out[#out + 1] = {m[2] + 1, m[4].virt_text[1][1]} end end; return out"
)
REPLY = "My answer, streamed slowly while the chat would be re-read: every word must stay."


def test_entries_another_program_appends_during_a_turn(launch: Any) -> None:
    session: list[Path] = []
    foreign: list[str] = []

    def other_program(body: JsonObject) -> Turn | None:
        if "mine" in message_text(body["messages"][-1]) and not foreign:
            # a pi CLI resumed the file meanwhile (its leaf: our unanswered prompt) and ran a turn
            other = SessionStore.open(session[0])
            foreign.append(other.append_message(user("theirs")))
            foreign.append(other.append_message(assistant("their answer")))
            other.close()
        return None

    script = Script(
        turns=[
            Turn(text="First answer."),
            tool_turn("read", {"path": "calc.py"}, text="Reading."),
            Turn(text=REPLY, chunk_size=2, chunk_delay=0.02),
        ]
    )
    n = launch(script)
    n.fake.responder = other_program
    open_chat(n)
    send(n, "hello")
    wait_idle(n)
    session.append(Path(n.lua("return require('pi_lsp.state').session.sessionFile")))
    n.nvim.command("Pi tree")
    n.wait("local t = require('pi_lsp.tree_view'); return t.model ~= nil and #t.ids > 0")
    send(n, "mine")
    wait_idle(n, 2)

    told = n.events("foreign_entries")
    assert [e["event"]["entryIds"] for e in told] == [foreign]
    wait_chat(n, "another program added 2 entries")
    text = chat_text(n)
    assert REPLY in text  # nothing of the streamed reply was lost to a re-read
    assert "## You\ntheirs" not in text  # their branch is not rendered as this chat's messages
    assert ":Pi tree" in text
    lines = text.split("\n")
    note = lines.index(next(line for line in lines if "another program added" in line))
    assert lines[note + 1 : note + 3] == ["  · you: theirs", "  · pi: their answer"]

    # the tree: both of their entries, marked, on a branch beside ours; the leaf on our reply
    n.wait(
        "for _, l in ipairs(vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1,"
        " false)) do if l:find(..., 1, true) then return true end end",
        20,
        REPLY[:20],
    )
    tree = n.lua(TREE_LINES)
    theirs = next(i for i, line in enumerate(tree, 1) if line.endswith("you: theirs"))
    assert tree[theirs - 1].lstrip().startswith("├")  # a sibling of our reply's chain
    assert "their answer" in tree[theirs]
    marked = {row for row, text in n.lua(TREE_MARKS) if "another program" in text}
    assert marked == {theirs, theirs + 1}
    leaf = next(line for line in tree if "● " in line)
    assert REPLY[:20] in leaf

    # the note survives the chat being rendered again, and gb on a line switches to that branch
    n.lua("require('pi_lsp.chat').load()")
    wait_chat(n, "  · pi: their answer")
    cursor_to(n, "  · pi: their answer")
    assert n.lua("return require('pi_lsp').entry_at_cursor()") == foreign[1]
    n.nvim.input("gb")
    n.wait("return require('pi_lsp.state').session.leafId == ...", 20, foreign[1])
    wait_chat(n, "## pi")
    n.wait(
        "return not table.concat(vim.api.nvim_buf_get_lines(require('pi_lsp.chat').buf, 0, -1,"
        " false), '\\n'):find('My answer', 1, true)"
    )
    assert "## You\ntheirs" in chat_text(n)
    assert "their answer" in chat_text(n)

"""The chat in real Neovim: :Pi, the streamed reply, folds, tool lines, keys on the message
under the cursor, permission prompts, abort, sessions picker, model switch, tree, health."""

from __future__ import annotations

import time
from typing import Any

from pi_lsp.devtools.builders import fake_settings, tool_turn
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import Script, Turn
from tests.nvim.conftest import WAIT, Nvim

CHAT_LINES = "return vim.api.nvim_buf_get_lines(require('pi_lsp.chat').buf, 0, -1, false)"


CHAT_FIND = (
    "local b = require('pi_lsp.chat').buf; if not b then return false end;"
    " return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\\n')"
    ":find(..., 1, true) ~= nil"
)


def wait_chat(n: Nvim, text: str, timeout: float = WAIT) -> None:
    """Wait until the chat buffer shows ``text``."""
    n.wait(CHAT_FIND, timeout, text)


def chat_text(n: Nvim) -> str:
    return "\n".join(n.lua(CHAT_LINES))


def send(n: Nvim, text: str) -> None:
    """Type into the prompt and press <CR> in normal mode, as a user."""
    n.lua(
        "local c = require('pi_lsp.chat'); vim.api.nvim_set_current_win(c.input_win);"
        " vim.api.nvim_buf_set_lines(c.input_buf, 0, -1, false, {...})",
        text,
    )
    n.nvim.input("<Esc>")
    n.nvim.input("<CR>")


def open_chat(n: Nvim) -> None:
    n.nvim.command("Pi")
    n.wait("return require('pi_lsp.state').id() ~= nil and require('pi_lsp.chat').is_open()")


def wait_idle(n: Nvim, count: int = 1, timeout: float = WAIT) -> None:
    n.wait_event("agent_end", count, timeout)
    n.wait("local s = require('pi_lsp.state').session; return s ~= nil and not s.isStreaming")


def line_of(n: Nvim, needle: str) -> int:
    lines = n.lua(CHAT_LINES)
    for i, line in enumerate(lines, 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in chat: {lines}")


def cursor_to(n: Nvim, needle: str) -> None:
    row = line_of(n, needle)
    n.lua(
        "local c = require('pi_lsp.chat'); vim.api.nvim_set_current_win(c.win);"
        " vim.api.nvim_win_set_cursor(c.win, {..., 0})",
        row,
    )


REPLY = "Hello from the scripted model, streamed in small chunks."


def test_chat_streams_the_reply_folds_thinking_and_shows_tool_status(launch: Any) -> None:
    script = Script(
        turns=[
            tool_turn(
                "read",
                {"path": "calc.py"},
                reasoning="Let me look.",
                text="Reading.",
                chunk_delay=0.01,
            ),
            Turn(text=REPLY, chunk_size=3, chunk_delay=0.01),
        ]
    )
    n = launch(script)
    open_chat(n)
    send(n, "What does calc.py do?")
    # the reply appears piece by piece while streaming
    n.wait("return table.concat(" + CHAT_LINES[7:] + ", '\\n'):find('Hello from', 1, true) ~= nil")
    wait_idle(n)
    text = chat_text(n)
    assert "## You\nWhat does calc.py do?" in text
    assert REPLY in text
    assert "▸ read calc.py" in text
    thinking = line_of(n, "> _thinking_")
    n.lua("vim.api.nvim_set_current_win(require('pi_lsp.chat').win)")
    assert n.lua("return vim.fn.foldclosed(...)", thinking) == thinking  # thinking is folded
    result = line_of(n, "↳ read result")
    assert n.lua("return vim.fn.foldclosed(...)", result) == result, "\n".join(
        f"{a!r} {b}"
        for a, b in zip(
            n.lua(CHAT_LINES), n.lua("return require('pi_lsp.chat').levels"), strict=False
        )
    )
    marks = n.lua(
        "local c = require('pi_lsp.chat'); local out = {};"
        " for _, m in ipairs(vim.api.nvim_buf_get_extmarks(c.buf, -1, 0, -1, {details = true})) do"
        " if m[4].virt_text then table.insert(out, m[4].virt_text[1][1]) end end; return out"
    )
    assert any("✓ done" in m for m in marks), marks
    # every message line knows its entry; ]m / [m move between messages
    cursor_to(n, REPLY[:20])
    entry = n.lua("return require('pi_lsp').entry_at_cursor()")
    entries = n.request(
        "pi/session/messages", {"sessionId": n.lua("return require('pi_lsp.state').id()")}
    )["entries"]
    assert entry == entries[-1]["id"]
    header = line_of(n, "## pi · fake-model")  # the first answer's header
    n.nvim.input("[m[m")
    n.wait("return vim.api.nvim_win_get_cursor(0)[1] == ...", 5, header)
    assert n.lua("return require('pi_lsp').entry_at_cursor()") not in (None, entry)
    n.nvim.input("]m")
    n.wait("return require('pi_lsp').entry_at_cursor() == ...", 5, entry)
    # the winbar shows the status
    status = n.lua("return require('pi_lsp').status()")
    assert status.startswith("fake-model · ") and "$" in status


def test_rendering_after_reopen_matches_the_stream(launch: Any) -> None:
    n = launch(Script(turns=[Turn(text="First answer.")]))
    open_chat(n)
    send(n, "hi")
    wait_idle(n)
    streamed = chat_text(n)
    n.lua("require('pi_lsp.chat').load()")
    n.wait("return #" + CHAT_LINES[7:] + " > 0")
    deadline = time.monotonic() + WAIT  # the reload renders on Neovim's loop: wait for it
    while (reloaded := chat_text(n)) != streamed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reloaded == streamed


def two_questions_then_back_to_the_first(n: Any) -> None:
    """Ask two questions in the chat, then put the cursor on the first answer."""
    open_chat(n)
    send(n, "question one")
    wait_idle(n)
    send(n, "question two")
    wait_idle(n, 2)
    cursor_to(n, "Answer one.")


def test_gb_branches_and_the_tree_shows_both_branches(launch: Any) -> None:
    n = launch(
        Script(
            turns=[Turn(text="Answer one."), Turn(text="Answer two."), Turn(text="Answer three.")]
        )
    )
    two_questions_then_back_to_the_first(n)
    n.nvim.input("gb")
    n.wait("return not table.concat(" + CHAT_LINES[7:] + ", '\\n'):find('question two', 1, true)")
    send(n, "question three")
    wait_idle(n, 3)
    text = chat_text(n)
    assert "Answer three." in text and "question two" not in text
    n.nvim.command("Pi tree")
    n.wait("local t = require('pi_lsp.tree_view'); return t.model ~= nil and #t.ids > 0")
    tree = n.lua("return vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1, false)")
    joined = "\n".join(tree)
    assert "you: question two" in joined and "you: question three" in joined
    assert any(line.lstrip().startswith("├") for line in tree)  # a branch point
    leaf = [line for line in tree if "● " in line]
    assert len(leaf) == 1 and "Answer three." in leaf[0]
    # kept current from entry_appended: a label appears without reopening
    n.nvim.command("Pi label milestone")
    n.wait(
        "for _, l in ipairs(vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1,"
        " false)) do if l:find('[milestone]', 1, true) then return true end end return false"
    )


def test_ge_puts_the_user_message_in_the_prompt_and_gf_forks(launch: Any) -> None:
    n = launch(Script(turns=[Turn(text="Answer one.")]))
    open_chat(n)
    send(n, "the original question")
    wait_idle(n)
    cursor_to(n, "the original question")
    n.nvim.input("ge")
    n.wait(
        "local c = require('pi_lsp.chat'); return vim.api.nvim_buf_get_lines(c.input_buf, 0, -1,"
        " false)[1] == 'the original question'"
    )
    assert "Answer one." not in chat_text(n)
    before = n.lua("return require('pi_lsp.state').id()")
    n.lua("require('pi_lsp.chat').load()")
    n.wait("return require('pi_lsp.state').id() ~= nil")
    # fork from the start of a fresh turn: a new session
    n.lua("vim.api.nvim_buf_set_lines(require('pi_lsp.chat').input_buf, 0, -1, false, {})")
    n.fake.push(Turn(text="Answer again."))
    send(n, "asked again")
    wait_idle(n, 2)
    cursor_to(n, "Answer again.")
    n.nvim.input("gf")
    n.wait("return require('pi_lsp.state').id() ~= ...", 10, before)
    assert "Answer again." in chat_text(n)


def test_gl_labels_and_gB_branches_with_a_summary(launch: Any) -> None:
    n = launch(
        Script(
            turns=[Turn(text="Answer one."), Turn(text="Answer two.")],
            default=Turn(text="## Goal\nsummary of the branch"),
        )
    )
    two_questions_then_back_to_the_first(n)
    entry = n.lua("return require('pi_lsp').entry_at_cursor()")
    n.lua("vim.ui.input = function(_, cb) cb('my label') end")
    n.nvim.input("gl")
    sid = n.lua("return require('pi_lsp.state').id()")
    n.wait(
        "local r = require('pi_lsp.client').request_sync('pi/session/tree', {sessionId = ...});"
        " for _, node in ipairs(r.nodes) do if node.label == 'my label' then return node.id end end",
        10,
        sid,
    )
    labelled = n.request("pi/session/tree", {"sessionId": sid})
    assert [x["id"] for x in labelled["nodes"] if x.get("label") == "my label"] == [entry]
    cursor_to(n, "Answer one.")
    n.lua("vim.ui.input = function(_, cb) cb('what was tried') end")
    n.nvim.input("gB")
    n.wait(
        "return table.concat(" + CHAT_LINES[7:] + ", '\\n'):find('Branch summary', 1, true) ~= nil"
    )
    text = chat_text(n)
    assert "question two" not in text
    row = line_of(n, "### Branch summary")
    n.lua("vim.api.nvim_set_current_win(require('pi_lsp.chat').win)")
    assert n.lua("return vim.fn.foldclosed(...)", row) == row  # folded section
    focus = [b for b in n.fake.bodies if "what was tried" in str(b)]
    assert focus, "the focus reached the summary request"


PERMISSION_SCRIPT = Script(
    turns=[
        tool_turn("bash", {"command": "echo one"}),
        tool_turn("bash", {"command": "echo two"}),
        Turn(text="Finished."),
    ]
)


def _bash_results(n: Nvim) -> list[dict[str, Any]]:
    sid = n.lua("return require('pi_lsp.state').id()")
    entries = n.request("pi/session/messages", {"sessionId": sid})["entries"]
    return [
        e["message"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]


PERMISSION_WAIT = WAIT
"""How long the tests wait for a prompt or for the turn's end."""


def _permission_run(launch: Any, keys: list[str]) -> list[dict[str, Any]]:
    """Answer each prompt of the default vim.ui.select (inputlist) with the given keys.

    The daemon's permission timeout is far beyond every wait here, so a prompt the plugin
    leaves unanswered (an ``<Esc>`` that does not deny at once) fails the wait for the turn's
    end instead of being denied by the timeout."""
    fake = FakeOpenAI(PERMISSION_SCRIPT)
    fake.start()
    timeout_ms = int(PERMISSION_WAIT * 1000) * 10
    n = launch(
        fake=fake, settings=fake_settings(fake.base_url, permissions={"timeoutMs": timeout_ms})
    )
    open_chat(n)
    send(n, "run it")
    for key in keys:
        n.wait(
            "return vim.fn.mode() == 'c' or vim.fn.mode() == 'r' or vim.fn.mode() == 'rm'",
            PERMISSION_WAIT,
        )
        n.nvim.input(key)
        time.sleep(0.3)
    wait_idle(n, timeout=PERMISSION_WAIT)
    return _bash_results(n)


def test_permission_allow_once_asks_every_time(launch: Any) -> None:
    results = _permission_run(launch, ["1<CR>", "1<CR>"])
    assert [r["isError"] for r in results] == [False, False]


def test_permission_allow_session_asks_once(launch: Any) -> None:
    results = _permission_run(launch, ["2<CR>"])
    assert [r["isError"] for r in results] == [False, False]


def test_permission_deny_and_escape_deny_at_once(launch: Any) -> None:
    results = _permission_run(launch, ["3<CR>", "<Esc>"])
    assert [r["isError"] for r in results] == [True, True]
    assert all("The user did not allow" in r["content"][0]["text"] for r in results), results


def test_abort_stops_the_turn(launch: Any) -> None:
    n = launch(Script(turns=[Turn(text="word " * 400, chunk_size=2, chunk_delay=0.02)]))
    open_chat(n)
    send(n, "long answer please")
    n.wait("return table.concat(" + CHAT_LINES[7:] + ", '\\n'):find('word word', 1, true) ~= nil")
    n.nvim.input("<C-c>")
    wait_idle(n)
    assert "aborted" in chat_text(n).lower()


def test_sessions_picker_and_model_switch(launch: Any) -> None:
    n = launch(Script(turns=[Turn(text="Answer one."), Turn(text="Answer two.")]))
    open_chat(n)
    send(n, "first session question")
    wait_idle(n)
    first = n.lua("return require('pi_lsp.state').id()")
    n.nvim.command("Pi new")
    n.wait("return require('pi_lsp.state').id() ~= ...", 10, first)
    send(n, "second session question")
    wait_idle(n, 2)
    # the picker lists both; choose the older one (items are newest first)
    n.lua(
        "_G.picked = nil; vim.ui.select = function(items, opts, cb) _G.picked = vim.tbl_map(opts.format_item, items);"
        " cb(items[#items]) end"
    )
    n.nvim.command("Pi sessions")
    n.wait("return require('pi_lsp.state').id() == ...", 10, first)
    picked = n.lua("return _G.picked")
    assert len(picked) == 2 and "second session question" in picked[0]
    n.wait("return table.concat(" + CHAT_LINES[7:] + ", '\\n'):find('Answer one.', 1, true) ~= nil")
    n.lua(
        "vim.ui.select = function(items, opts, cb) for _, m in ipairs(items) do if m.id == 'openai/fake-model-2' then return cb(m) end end end"
    )
    n.nvim.command("Pi model")
    n.wait("return require('pi_lsp').status():find('fake%-model%-2') ~= nil")


def test_checkhealth(launch: Any) -> None:
    n = launch(Script())
    n.nvim.command("checkhealth pi_lsp")
    text = "\n".join(n.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"))
    assert "Neovim 0.11.4" in text or "Neovim 0.11" in text
    assert "command: " in text and "pi-lsp" in text
    assert "version: pi-lsp" in text
    assert "initialize round trip: pi-lsp" in text
    assert "is writable" in text
    assert "set: OPENAI_API_KEY" in text
    assert "ERROR" not in text, text


def test_tree_keys_navigate_label_and_fork(launch: Any) -> None:
    n = launch(Script(turns=[Turn(text="Answer one."), Turn(text="Answer two.")]))
    open_chat(n)
    send(n, "question one")
    wait_idle(n)
    send(n, "question two")
    wait_idle(n, 2)
    n.nvim.command("Pi tree")
    n.wait("local t = require('pi_lsp.tree_view'); return t.model ~= nil and #t.ids > 0")

    def to_node(text: str) -> None:
        row = n.lua(
            "local t = require('pi_lsp.tree_view'); vim.api.nvim_set_current_win(t.win);"
            " for i, l in ipairs(vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)) do"
            " if l:find(..., 1, true) then vim.api.nvim_win_set_cursor(t.win, {i, 0});"
            " return i end end",
            text,
        )
        assert row, text

    to_node("pi: Answer one.")
    n.nvim.input("<CR>")  # navigate: the chat now ends at the first answer
    n.wait(
        "local b = require('pi_lsp.chat').buf; return not table.concat("
        "vim.api.nvim_buf_get_lines(b, 0, -1, false), '\\n'):find('question two', 1, true)"
    )
    n.wait(
        "for _, l in ipairs(vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1,"
        " false)) do if l:find('● pi: Answer one.', 1, true) then return true end end"
    )
    to_node("pi: Answer one.")
    n.lua("vim.ui.input = function(_, cb) cb('from the tree') end")
    n.nvim.input("l")
    n.wait(
        "for _, l in ipairs(vim.api.nvim_buf_get_lines(require('pi_lsp.tree_view').buf, 0, -1,"
        " false)) do if l:find('[from the tree]', 1, true) then return true end end"
    )
    before = n.lua("return require('pi_lsp.state').id()")
    to_node("pi: Answer one.")
    n.nvim.input("f")
    n.wait("return require('pi_lsp.state').id() ~= ...", 10, before)

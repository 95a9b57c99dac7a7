"""Two Neovims (two daemons) on one session: the one not running the turn shows that a turn
runs elsewhere and sees the other's entries as they are written."""

from __future__ import annotations

import threading
from typing import Any

from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from tests.nvim.test_chat import chat_text, open_chat, send, wait_chat, wait_idle

SLOW = "take your time"


def test_two_neovims_on_one_session(launch: Any) -> None:
    release = threading.Event()

    def hold(body: JsonObject) -> Turn | None:
        if SLOW in message_text(body["messages"][-1]):
            release.wait(60)
        return None

    fake = FakeOpenAI(
        Script(turns=[Turn(text="First answer.")], default=Turn(text="The slow answer.")),
        responder=hold,
    )
    fake.start()
    try:
        a = launch(fake=fake)
        b = launch(fake=fake)
        open_chat(a)
        send(a, "hello")
        wait_idle(a)
        path = a.lua("return require('pi_lsp.state').session.sessionFile")
        # B opens the same session through the picker
        b.lua(
            "local path = ...; vim.ui.select = function(items, _, cb)"
            " for _, s in ipairs(items) do if s.path == path then return cb(s) end end end",
            path,
        )
        b.nvim.command("Pi sessions")
        wait_chat(b, "First answer.")
        send(a, SLOW)
        # without any request from B, A's message appears there and B shows the running turn
        wait_chat(b, SLOW, 15)
        b.wait("return require('pi_lsp').status():find('running elsewhere', 1, true) ~= nil")
        assert "The slow answer." not in chat_text(b)
    finally:
        release.set()
    wait_idle(a, 2)
    wait_chat(b, "The slow answer.")
    b.wait("return require('pi_lsp').status():find('running elsewhere', 1, true) == nil")
    fake.stop()

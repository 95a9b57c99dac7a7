"""Steering and follow-up queues (pi's ``steer`` / ``followUp``, spec §11).

Steering messages interrupt: the loop takes them at its start and after every tool call.
Follow-ups wait until the agent would otherwise stop. In ``one-at-a-time`` mode each poll takes
one message; in ``all`` mode it takes everything queued.
"""

from __future__ import annotations

from collections import deque

from pi_lsp.literals import QueueMode as QueueMode
from pi_lsp.session.messages import UserMessage


class MessageQueue:
    """A FIFO of user messages with pi's delivery mode."""

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: deque[UserMessage] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def push(self, message: UserMessage) -> None:
        """Queue a message."""
        self._items.append(message)

    def take(self) -> list[UserMessage]:
        """Messages to deliver now: one, or all of them in ``all`` mode."""
        if not self._items:
            return []
        if self.mode == "all":
            taken = list(self._items)
            self._items.clear()
            return taken
        return [self._items.popleft()]

    def clear(self) -> list[UserMessage]:
        """Drop everything queued; returns it (pi restores the texts to the editor on abort)."""
        taken = list(self._items)
        self._items.clear()
        return taken

    def texts(self) -> list[str]:
        """The queued messages' text, for state reports."""
        return [_text(m) for m in self._items]


def _text(message: UserMessage) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b["text"] for b in content if b["type"] == "text")

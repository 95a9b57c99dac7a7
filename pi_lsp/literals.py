"""The string values shared by several layers, each defined once (pi's names and spellings).

Files, the agent, settings and the ``pi/…`` protocol all use these; the schemas name them
(``$defs/ThinkingLevel``, ``$defs/QueueMode``), so the editors' generated types have one each.
Adding a value (pi 1.6.0's ``max`` thinking level, for example) is a change to one line here.
"""

from __future__ import annotations

from typing import Literal, get_args

from typing_extensions import TypeAliasType

ThinkingLevel = TypeAliasType(
    "ThinkingLevel", Literal["off", "minimal", "low", "medium", "high", "xhigh"]
)
"""pi's thinking levels, weakest first."""
THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel.__value__)
"""Every level, weakest first."""

QueueMode = TypeAliasType("QueueMode", Literal["all", "one-at-a-time"])
"""How queued steering or follow-up messages are delivered: all at once, or one per turn."""

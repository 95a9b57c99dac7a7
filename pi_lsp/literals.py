"""The string values shared by several layers, each defined once (pi's names and spellings).

Files, the agent, settings and the ``pi/…`` protocol all use these; the schemas name them
(``$defs/ThinkingLevel``, ``$defs/QueueMode``, …), so the editors' generated types have one each.
Adding a value (pi 1.6.0's ``max`` thinking level, for example) is a change to one line here.
"""

from __future__ import annotations

from typing import Literal, get_args

from typing_extensions import TypeAliasType

ThinkingLevel = TypeAliasType(
    "ThinkingLevel", Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
)
"""pi 1.6.0's thinking levels, weakest first."""
THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel.__value__)
"""Every level, weakest first."""

QueueMode = TypeAliasType("QueueMode", Literal["all", "one-at-a-time"])
"""How queued steering or follow-up messages are delivered: all at once, or one per turn."""

StreamingBehavior = TypeAliasType("StreamingBehavior", Literal["steer", "followUp"])
"""What a prompt sent during a running turn becomes: a steering or a follow-up message."""

CompactionReason = TypeAliasType("CompactionReason", Literal["threshold", "overflow"])
"""Why compaction started by itself: the context passed the threshold, or it overflowed."""

EditMode = TypeAliasType("EditMode", Literal["editor", "disk"])
"""Where ``write``/``edit`` go for files the editor has open: its buffers, or the disk."""

PermissionKind = TypeAliasType(
    "PermissionKind", Literal["bash", "writeOutsideWorkspace", "writeProtected", "readSecret"]
)
"""What the agent asks permission for: running a command, writing outside the workspace (or a
file with several names, or anything with no folder open), writing a file inside that runs code
or configures tools, reading a secret source (see docs/security.md)."""

PermissionDecision = TypeAliasType(
    "PermissionDecision", Literal["allowOnce", "allowSession", "deny"]
)
"""The user's answer to a permission request."""

DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")
"""The tools pi activates when none are selected (pi 1.6.0's ``DEFAULT_TOOL_NAMES``)."""

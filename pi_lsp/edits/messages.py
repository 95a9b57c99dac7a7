"""The texts the model reads when an editor-backed write does not happen.

Each one says what happened, that the user's text was left alone, and what to do next: read the
file again (its current content is what counts) before retrying.
"""

from __future__ import annotations

RETRY = "Read the file again and redo the change against its current content."


def refused(path: str, reason: str | None) -> str:
    """The editor answered ``applied: false``, failed the request, or never answered."""
    why = reason.strip() if reason and reason.strip() else "no reason given"
    return f"The editor refused the change to {path} ({why}). {RETRY}"


def changed_since_read(path: str) -> str:
    """The buffer's text is no longer the text the tool read."""
    return (
        f"{path} changed in the editor after it was read (the user or another change edited it)."
        f" Nothing was written. {RETRY}"
    )


def unconfirmed(path: str, seconds: float) -> str:
    """A previous change was applied, but the editor never reported the resulting text."""
    return (
        f"The editor did not report the result of the previous change to {path} within "
        f"{seconds:g} s, so its current text is unknown. Nothing was written. {RETRY}"
    )


def mismatch(path: str) -> str:
    """The editor said it applied the change, but the text it then reported is not the result."""
    return (
        f"The editor reported the change to {path} as applied, but the buffer's text afterwards"
        " is not the expected result (it was probably being edited at the same time), so the"
        " change counts as failed. The user was told that an undo restores the file."
        f" {RETRY}"
    )


def unconfirmed_apply(path: str, seconds: float) -> str:
    """The editor said it applied the change, but never reported the resulting text."""
    return (
        f"The editor reported the change to {path} as applied but did not send the resulting"
        f" text within {seconds:g} s, so whether it was made is unknown. {RETRY}"
    )


def user_mismatch(path: str) -> str:
    """What the user reads when an applied edit did not produce the text the agent computed."""
    return (
        f"pi_lsp: the agent's edit to {path} did not land as computed (the buffer changed at the"
        " same time). The agent was told the edit failed; an undo restores the file."
    )


def unsaved_changes(path: str, why_disk: str) -> str:
    """A disk write would go behind an editor buffer that holds unsaved changes."""
    return (
        f"{path} has unsaved changes in the editor, and changes go to the disk ({why_disk})."
        " Nothing was written. Ask the user to save or discard the editor's changes, then read"
        " the file again."
    )


DISK_MODE = 'the "editMode" setting is "disk"'
NO_APPLY_EDIT = "the editor does not accept workspace edits"

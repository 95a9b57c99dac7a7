"""Summary request texts: pi's structure (D5), pi_lsp's own wording. Pure constants.

Every request is one user message holding a ``<conversation>`` transcript, optionally the
``<previous-summary>`` to update, and then one of the instruction texts below.
"""

from __future__ import annotations

SYSTEM_PROMPT = """\
You condense conversations between a user and an AI coding assistant into structured summaries.
Read the transcript you are given and write only the summary that is asked for, in the requested \
format. Do not carry on the conversation, and do not answer any question that appears in it."""

_SECTIONS_TAIL = """\
## Key Decisions
- **[Decision]**: [Why it was made, briefly]

## Next Steps
1. [What to do next, in order]
"""

INITIAL_INSTRUCTIONS = f"""\
The <conversation> above is a transcript to condense. Write a checkpoint summary that another \
model can pick the work up from.

Use exactly this Markdown layout:

## Goal
[What the user wants to achieve; several goals if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that is under way]

### Blocked
- [Whatever stops progress, if anything]

{_SECTIONS_TAIL}
## Critical Context
- [Data, examples or references needed to continue]
- [Or "(none)" if nothing applies]

Keep every section short. Copy file paths, function names and error messages exactly."""

UPDATE_INSTRUCTIONS = """\
The <conversation> above holds NEW messages. Merge them into the summary given in \
<previous-summary>, following these rules:
- Keep everything the previous summary says unless it is clearly no longer relevant.
- Add the new progress, decisions and context.
- Move items from "In Progress" to "Done" once they are finished.
- Rewrite "Next Steps" to match where the work now stands.
- Copy file paths, function names and error messages exactly.

Use exactly this Markdown layout:

## Goal
[The existing goals, plus any new ones]

## Constraints & Preferences
- [The existing ones, plus any new ones]

## Progress
### Done
- [x] [Items done before AND items finished since]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; drop the resolved ones]

## Key Decisions
- **[Decision]**: [Why it was made, briefly] (keep the earlier ones, add new ones)

## Next Steps
1. [Updated for the current state]

## Critical Context
- [Important context, kept and extended]

Keep every section short. Copy file paths, function names and error messages exactly."""

TURN_PREFIX_INSTRUCTIONS = """\
The <conversation> above is only the FIRST PART of a turn too long to keep whole; the rest of \
the turn (the most recent work) stays in the context verbatim.

Summarize this first part so the part that was kept makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in this first part]

## Context for Suffix
- [What someone reading only the kept part needs to know]

Be brief and focus on what the kept part depends on."""

BRANCH_INSTRUCTIONS = f"""\
The <conversation> above is a branch of the session that the user is leaving. Summarize it so \
the work can be picked up again later.

Use exactly this Markdown layout:

## Goal
[What the user was trying to achieve on this branch]

## Constraints & Preferences
- [Requirements, limits or preferences that were stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [Whatever stopped progress, if anything]

{_SECTIONS_TAIL}
Keep every section short. Copy file paths, function names and error messages exactly."""

BRANCH_PREAMBLE = """\
The user explored a different conversation branch before returning here.
Summary of that exploration:

"""
"""Put before every branch summary; pi's exact text, since it is part of the stored entry."""

NO_PRIOR_HISTORY = "No prior history."
"""History summary of a split turn with nothing before it (pi's text, stored in the entry)."""

NO_BRANCH_CONTENT = "No content to summarize"
"""Branch summary of a branch without messages (pi's text; no model is asked)."""

SPLIT_TURN_HEADING = "\n\n---\n\n**Turn Context (split turn):**\n\n"
"""Joins the history summary and the turn-prefix summary (pi's layout)."""


def conversation_block(transcript: str) -> str:
    """The transcript wrapped in ``<conversation>`` tags, followed by a blank line."""
    return f"<conversation>\n{transcript}\n</conversation>\n\n"


def previous_summary_block(summary: str) -> str:
    """An earlier summary wrapped in ``<previous-summary>`` tags, followed by a blank line."""
    return f"<previous-summary>\n{summary}\n</previous-summary>\n\n"


def with_focus(instructions: str, focus: str | None) -> str:
    """Instructions with the user's ``Additional focus: …`` appended, if any."""
    return f"{instructions}\n\nAdditional focus: {focus}" if focus else instructions

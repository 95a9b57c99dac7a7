"""The demo's scripted model: what the fake OpenAI server answers at each step of the story.

Replies are chosen from the request itself, so the story works however the agent interleaves
calls: a compaction or branch-summary request (it carries a ``<conversation>`` block) gets a
structured summary; otherwise the latest user prompt selects a play, and the number of tool
results since that prompt selects the step.
"""

from __future__ import annotations

import json
from typing import Any

from pi_lsp.devtools.fake_script import ScriptToolCall, ScriptUsage, Turn, message_text

PROJECT = {
    "calc.py": 'def add(a, b):\n    """Add two numbers."""\n    return abs(a) + b\n',
    "test_calc.py": (
        "import unittest\n\nfrom calc import add\n\n\n"
        "class AddTest(unittest.TestCase):\n"
        "    def test_negative(self):\n        self.assertEqual(add(-2, 3), 1)\n\n\n"
        'if __name__ == "__main__":\n    unittest.main()\n'
    ),
}

FIX = "The test for negative numbers fails. Please fix calc.py."
DOCS = "What exactly does test_calc.py check?"
MULTIPLY = "Never mind that. Add a multiply function next to add."

SUMMARY = (
    "## Goal\nFix calc.add for negative numbers and extend calc.py.\n\n"
    "## Constraints & Preferences\n- Keep the unittest suite green\n\n"
    "## Progress\n### Done\n- [x] Read calc.py; `add` used `abs(a)`\n- [x] Fixed `add`; "
    "`python -m unittest` passes\n### In Progress\n- [ ] (none)\n### Blocked\n- (none)\n\n"
    "## Key Decisions\n- **Plain unittest**: no extra dependencies\n\n"
    "## Next Steps\n1. Continue with the user's next request\n\n"
    "## Critical Context\n- Tests run with `python -m unittest -q`"
)


MULTIPLY_CODE = (
    '    return a + b\n\n\ndef multiply(a, b):\n    """Multiply two numbers."""\n    return a * b\n'
)


def _call(name: str, **arguments: Any) -> ScriptToolCall:
    return ScriptToolCall(name=name, arguments=arguments)


def _usage(prompt_tokens: int) -> ScriptUsage:
    return ScriptUsage(prompt_tokens=prompt_tokens, completion_tokens=60)


PLAYS: dict[str, list[Turn]] = {
    FIX: [
        Turn(
            text="Let me look at calc.py.",
            tool_calls=[_call("read", path="calc.py")],
            usage=_usage(900),
        ),
        Turn(
            text="`add` takes `abs(a)`, which breaks negative numbers. Fixing it.",
            tool_calls=[
                _call("edit", path="calc.py", oldText="return abs(a) + b", newText="return a + b")
            ],
            usage=_usage(1100),
        ),
        Turn(
            text="Running the tests.",
            tool_calls=[_call("bash", command="python -m unittest -q test_calc 2>&1")],
            usage=_usage(1300),
        ),
        Turn(text="Fixed: `add(-2, 3)` is now 1 and the test passes.", usage=_usage(1500)),
    ],
    DOCS: [
        Turn(tool_calls=[_call("read", path="test_calc.py")], usage=_usage(1700)),
        Turn(text="One unittest case: `add(-2, 3)` must equal 1.", usage=_usage(1800)),
    ],
    MULTIPLY: [
        Turn(
            tool_calls=[
                _call(
                    "edit",
                    path="calc.py",
                    oldText="    return a + b\n",
                    newText=MULTIPLY_CODE,
                )
            ],
            usage=_usage(2600),
        ),
        Turn(
            tool_calls=[
                _call(
                    "bash", command="python -c 'from calc import multiply; print(multiply(6, 7))'"
                )
            ],
            usage=_usage(3000),
        ),
        Turn(text="Added `multiply`; `multiply(6, 7)` prints 42.", usage=_usage(3400)),
    ],
}


def respond(body: dict[str, Any]) -> Turn:
    """The fake model's reply to one chat-completions request."""
    messages = body.get("messages") or []
    if "<conversation>" in json.dumps(messages):
        return Turn(text=SUMMARY, usage=_usage(800))
    steps = 0
    for message in reversed(messages):
        if message.get("role") == "tool":
            steps += 1
        elif message.get("role") == "user" and message_text(message) in PLAYS:
            play = PLAYS[message_text(message)]
            return play[min(steps, len(play) - 1)]
    return Turn(text="(the demo script has no reply for this)")

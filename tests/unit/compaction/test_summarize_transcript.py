"""The transcript sent for summaries: part labels, the tool-result cut, JavaScript JSON."""

from __future__ import annotations

from pi_lsp.compaction import serialize_conversation, serialize_messages
from pi_lsp.compaction.summarize import truncate_for_summary
from pi_lsp.devtools.builders import assistant, call, tool_result, user


def test_a_5000_character_tool_result_keeps_2000_and_says_how_much_was_cut() -> None:
    text = serialize_conversation([tool_result("x" * 5000)])
    assert text == "[Tool result]: " + "x" * 2000 + "\n\n[... 3000 more characters truncated]"


def test_a_1500_character_tool_result_is_untouched() -> None:
    assert serialize_conversation([tool_result("y" * 1500)]) == "[Tool result]: " + "y" * 1500
    assert serialize_conversation([tool_result("z" * 2000)]) == "[Tool result]: " + "z" * 2000


def test_user_and_assistant_text_is_never_cut() -> None:
    long = "w" * 5000
    text = serialize_conversation([user(long), assistant(long)])
    assert text == f"[User]: {long}\n\n[Assistant]: {long}"


def test_the_cut_never_splits_a_surrogate_pair() -> None:
    text = "a" * 1999 + "😀" + "b" * 100  # the emoji occupies units 2000 and 2001
    cut = truncate_for_summary(text)
    assert cut == "a" * 1999 + "\n\n[... 102 more characters truncated]"
    cut.encode("utf-8")  # well-formed: no lone surrogate
    assert truncate_for_summary("a" * 1998 + "😀" + "b" * 100).startswith("a" * 1998 + "😀\n\n")


def test_lengths_are_utf16_units() -> None:
    text = "😀" * 1500  # 3000 UTF-16 units, 1500 code points
    assert truncate_for_summary(text) == "😀" * 1000 + "\n\n[... 1000 more characters truncated]"


def test_part_labels_and_order() -> None:
    reply = assistant(
        "first\nline", calls=[call("read", path="a.ts"), call("bash", command="ls -la")]
    )
    reply["content"] += [
        {"type": "thinking", "thinking": "plan A"},
        {"type": "text", "text": "second"},
        {"type": "thinking", "thinking": "plan B"},
    ]
    text = serialize_conversation([user("go"), reply, tool_result("done")])
    assert text == (
        "[User]: go\n\n"
        "[Assistant thinking]: plan A\nplan B\n\n"
        "[Assistant]: first\nline\nsecond\n\n"
        '[Assistant tool calls]: read(path="a.ts"); bash(command="ls -la")\n\n'
        "[Tool result]: done"
    )


def test_user_blocks_join_without_separator_and_empty_parts_vanish() -> None:
    message = {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
    assert serialize_conversation([message, user(""), tool_result("")]) == "[User]: ab"
    assert serialize_conversation([{"role": "user", "content": "plain"}]) == "[User]: plain"


def test_tool_call_arguments_are_json_values_in_javascript_order() -> None:
    reply = assistant(
        "",
        calls=[
            {"id": "1", "name": "edit", "arguments": {"b": 1.0, "2": [None, "é"], "1": {"x": 1e-7}}}
        ],
    )
    assert serialize_conversation([reply]) == (
        '[Assistant tool calls]: edit(1={"x":1e-7}, 2=[null,"é"], b=1)'
    )


def test_agent_roles_are_converted_first() -> None:
    bash = {
        "role": "bashExecution",
        "command": "make",
        "output": "ok",
        "exitCode": 2,
        "cancelled": False,
        "truncated": False,
        "timestamp": 1,
    }
    summary = {"role": "compactionSummary", "summary": "S", "tokensBefore": 5, "timestamp": 1}
    text = serialize_messages([bash, summary])
    assert text.startswith(
        "[User]: Ran `make`\n```\nok\n```\n\nCommand exited with code 2\n\n[User]: "
    )
    assert text.endswith("<summary>\nS\n</summary>")

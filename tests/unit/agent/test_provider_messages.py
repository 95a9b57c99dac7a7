"""pi stored messages -> chat-completions messages: every role, images, summaries, orphaned calls."""

from __future__ import annotations

import json

from pi_lsp.agent.models import ModelInfo
from pi_lsp.agent.provider_messages import (
    IMAGE_ONLY_RESULT_TEXT,
    NO_RESULT_TEXT,
    TOOL_IMAGES_TEXT,
    to_provider_messages,
    tool_definitions,
)
from pi_lsp.devtools.builders import assistant, call, text, tool_result
from pi_lsp.session.messages import BRANCH_PREFIX, COMPACTION_PREFIX
from tests.unit.agent.helpers import model_info

GPT_4O = {"provider": "openai", "model": "gpt-4o", "api": "openai-completions"}
PNG = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
PNG_URL = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def model(ref: str = "openai/gpt-4o", *, images: bool = True) -> ModelInfo:
    return model_info(ref, supports_images=images)


def test_system_prompt_user_text_and_images() -> None:
    messages = [
        {"role": "user", "content": "plain string", "timestamp": 1},
        {"role": "user", "content": [text("look at this"), PNG], "timestamp": 1},
    ]
    assert to_provider_messages(messages, model(), system_prompt="SYS") == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "plain string"},
        {"role": "user", "content": [{"type": "text", "text": "look at this"}, PNG_URL]},
    ]


def test_images_are_dropped_for_models_without_vision_and_empty_messages_skipped() -> None:
    messages = [
        {"role": "user", "content": [text("caption"), PNG], "timestamp": 1},
        {"role": "user", "content": [PNG], "timestamp": 1},
    ]
    assert to_provider_messages(messages, model(images=False)) == [
        {"role": "user", "content": [{"type": "text", "text": "caption"}]},
    ]


def test_assistant_text_tool_calls_and_results() -> None:
    messages = [
        assistant(
            [
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning_content"},
                text("Reading."),
                call("read", "c1", path="a.py"),
                call("bash", "c2", command="ls -la", timeout=5),
            ],
            **GPT_4O,
        ),
        tool_result([text("line 1"), text("line 2")], "c1"),
        tool_result([text("ok")], "c2", "bash"),
    ]
    out = to_provider_messages(messages, model())
    assert out == [
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path":"a.py"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command":"ls -la","timeout":5}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "line 1\nline 2"},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
    ]
    assert json.loads(out[0]["tool_calls"][1]["function"]["arguments"]) == {
        "command": "ls -la",
        "timeout": 5,
    }


def test_several_text_blocks_stay_separate_parts() -> None:
    out = to_provider_messages(
        [assistant([text("one"), text("two")], stop="stop", **GPT_4O)], model()
    )
    assert out == [{"role": "assistant", "content": [text("one"), text("two")]}]


def test_tool_result_images_follow_the_run_of_tool_messages() -> None:
    messages = [
        assistant([call("read", "c1"), call("read", "c2")], **GPT_4O),
        tool_result([PNG], "c1"),
        tool_result([text("described"), PNG], "c2"),
        {"role": "user", "content": "next", "timestamp": 4},
    ]
    out = to_provider_messages(messages, model())
    assert [m["role"] for m in out] == ["assistant", "tool", "tool", "user", "user"]
    assert out[1]["content"] == IMAGE_ONLY_RESULT_TEXT
    assert out[2]["content"] == "described"
    assert out[3] == {"role": "user", "content": [text(TOOL_IMAGES_TEXT), PNG_URL, PNG_URL]}
    assert out[4] == {"role": "user", "content": "next"}


def test_tool_result_images_without_vision_leave_only_the_text() -> None:
    out = to_provider_messages(
        [assistant([call("read", "c1")], **GPT_4O), tool_result([PNG], "c1")], model(images=False)
    )
    assert out[1:] == [{"role": "tool", "tool_call_id": "c1", "content": IMAGE_ONLY_RESULT_TEXT}]


def test_aborted_tool_calls_get_error_results_and_failed_replies_are_dropped() -> None:
    messages = [
        {"role": "user", "content": "go", "timestamp": 1},
        assistant([text("Running both."), call("read", "c1"), call("bash", "c2")], **GPT_4O),
        tool_result([text("done")], "c1"),
        # c2 never got a result (the turn was aborted while it ran)
        {"role": "user", "content": "what happened?", "timestamp": 5},
        assistant([text("partial"), call("read", "c3")], stop="aborted", **GPT_4O),
        assistant([], stop="error", **GPT_4O),
        assistant([call("read", "c4")], **GPT_4O),
    ]
    out = to_provider_messages(messages, model())
    assert [(m["role"], m.get("tool_call_id")) for m in out] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("user", None),
        ("assistant", None),
        ("tool", "c4"),
    ]
    assert out[3]["content"] == NO_RESULT_TEXT
    assert out[6]["content"] == NO_RESULT_TEXT  # trailing orphan answered too
    assert "c3" not in json.dumps(out)


def test_empty_assistant_reply_is_skipped() -> None:
    assert to_provider_messages([assistant([], stop="stop", **GPT_4O)], model()) == []


def test_summaries_custom_and_bash_messages_become_user_messages() -> None:
    messages = [
        {"role": "compactionSummary", "summary": "S1", "tokensBefore": 10, "timestamp": 1},
        {"role": "branchSummary", "summary": "B1", "fromId": "x", "timestamp": 1},
        {
            "role": "custom",
            "customType": "note",
            "content": "custom text",
            "display": True,
            "timestamp": 1,
        },
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a.py",
            "exitCode": 1,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1,
        },
        {
            "role": "bashExecution",
            "command": "secret",
            "output": "x",
            "cancelled": False,
            "truncated": False,
            "excludeFromContext": True,
            "timestamp": 1,
        },
    ]
    out = to_provider_messages(messages, model())
    texts = [m["content"][0]["text"] for m in out]
    assert [m["role"] for m in out] == ["user"] * 4
    assert texts[0] == f"{COMPACTION_PREFIX}\n\n<summary>\nS1\n</summary>"
    assert texts[1] == f"{BRANCH_PREFIX}\n\n<summary>\nB1</summary>"
    assert texts[2] == "custom text"
    assert texts[3] == "Ran `ls`\n```\na.py\n```\n\nCommand exited with code 1"


def test_block_images_replaces_them_with_a_note() -> None:
    out = to_provider_messages(
        [{"role": "user", "content": [text("see"), PNG, PNG], "timestamp": 1}],
        model(),
        block_images=True,
    )
    assert out == [
        {"role": "user", "content": [text("see"), text("Image reading is disabled.")]},
    ]


def test_anthropic_same_model_gets_signed_thinking_blocks_and_valid_ids() -> None:
    target = model("anthropic/claude-sonnet-4-5")
    reply = assistant(
        [
            {"type": "thinking", "thinking": "plan", "thinkingSignature": "sig=="},
            {
                "type": "thinking",
                "thinking": "[Reasoning redacted]",
                "thinkingSignature": "ENC",
                "redacted": True,
            },
            {"type": "thinking", "thinking": "unsigned"},
            call("read", "call|abc/1"),
        ],
        model="claude-sonnet-4-5",
    )
    out = to_provider_messages([reply, tool_result([text("ok")], "call|abc/1")], target)
    assert out[0]["thinking_blocks"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "ENC"},
    ]
    assert out[0]["content"] is None
    assert out[0]["tool_calls"][0]["id"] == "call_abc_1"
    assert out[1]["tool_call_id"] == "call_abc_1"


def test_thinking_from_another_model_is_not_replayed() -> None:
    target = model("anthropic/claude-sonnet-4-5")
    reply = assistant(
        [{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig=="}, text("hi")],
        stop="stop",
        model="claude-opus-4-5",
    )
    assert to_provider_messages([reply], target) == [{"role": "assistant", "content": "hi"}]


def test_tool_definitions_from_triples() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    assert tool_definitions([("read", "Read a file", schema)]) == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read a file", "parameters": schema},
        }
    ]


def test_results_that_answer_no_call_are_dropped() -> None:
    messages = [
        assistant([text("partial"), call("read", "c1")], stop="aborted", **GPT_4O),
        tool_result([text("ran anyway")], "c1"),  # its reply is not sent, so neither is this
        {"role": "user", "content": "again", "timestamp": 4},
        assistant([call("read", "c2")], **GPT_4O),
        tool_result([text("first")], "c2"),
        tool_result([text("duplicate")], "c2"),
    ]
    out = to_provider_messages(messages, model())
    assert [(m["role"], m.get("content")) for m in out] == [
        ("user", "again"),
        ("assistant", None),
        ("tool", "first"),
    ]

"""pi's events and stored messages as ACP updates: the message ids live and in a replay."""

from __future__ import annotations

from typing import Any

from pi_lsp.acp.updates import LiveUpdates, block_id, replay

ASSISTANT: dict[str, Any] = {
    "role": "assistant",
    "timestamp": 1733090000123,
    "content": [
        {"type": "thinking", "thinking": "Let me see."},
        {"type": "text", "text": "Four."},
    ],
}


def _delta(kind: str, index: int, delta: str) -> dict[str, Any]:
    """A streaming update as the daemon sends it (the delta, not the message)."""
    return {
        "type": "message_update",
        "assistantMessageEvent": {"type": kind, "contentIndex": index, "delta": delta},
    }


def test_live_deltas_and_the_replay_give_each_block_the_same_id() -> None:
    live = LiveUpdates("/p")
    assert live({"type": "message_start", "message": ASSISTANT}) == []
    thought = live(_delta("thinking_delta", 0, "Let me"))[0]
    texts = [live(_delta("text_delta", 1, part))[0] for part in ("Fo", "ur.")]
    assert thought.session_update == "agent_thought_chunk"
    assert {t.message_id for t in texts} == {"1733090000123-1"}
    assert thought.message_id == "1733090000123-0"
    replayed = list(replay([ASSISTANT], ["e1"], "/p"))
    assert [(u.session_update, u.message_id) for u in replayed] == [
        ("agent_thought_chunk", thought.message_id),
        ("agent_message_chunk", texts[0].message_id),
    ]
    assert all(u.field_meta == {"pi": {"entryId": "e1"}} for u in replayed)


def test_ids_without_a_timestamp_fall_back_to_the_entry() -> None:
    assert block_id({"role": "assistant"}, 2, "e9") == "e9-2"
    assert block_id({"role": "assistant"}, 2) is None
    assert block_id({"timestamp": True}, 0, "e1") == "e1-0"


def test_notices_get_ids_of_their_own() -> None:
    live = LiveUpdates("/p")
    first = live({"type": "compaction_start"})[0]
    second = live({"type": "compaction_start"})[0]
    assert first.message_id and second.message_id and first.message_id != second.message_id


def test_user_messages_and_summaries_use_their_entry_ids() -> None:
    messages = [
        {"role": "compactionSummary", "summary": "Earlier.", "timestamp": 1},
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 2},
    ]
    replayed = list(replay(messages, ["c1", "u1"], "/p"))
    assert [(u.session_update, u.message_id) for u in replayed] == [
        ("agent_thought_chunk", "c1"),
        ("user_message_chunk", "u1"),
    ]

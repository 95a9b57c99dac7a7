"""``SessionStore.own_chain``: another writer's entries never become a turn's parents."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.devtools.builders import assistant, user
from pi_lsp.session import SessionStore


def _pair(tmp_path: Path) -> tuple[SessionStore, SessionStore]:
    ours = SessionStore.create(str(tmp_path), directory=tmp_path / "s")
    ours.append_message(user("hello"))
    assert ours.path is not None
    return ours, SessionStore.open(ours.path)


def test_outside_a_turn_the_leaf_follows_a_writer_that_continues_it(tmp_path: Path) -> None:
    ours, theirs = _pair(tmp_path)
    reply = theirs.append_message(assistant("their reply"))
    ours.refresh()
    assert ours.leaf_id == reply


def test_inside_a_turn_the_leaf_stays_and_the_foreign_entries_are_collected(
    tmp_path: Path,
) -> None:
    ours, theirs = _pair(tmp_path)
    before = theirs.append_message(user("written before the turn"))
    with ours.own_chain() as foreign:
        assert ours.leaf_id == before  # caught up at the start, as outside a turn
        prompt = ours.append_message(user("ours"))
        their_reply = theirs.append_message(assistant("pi answers our prompt"))
        our_reply = ours.append_message(assistant("ours answered"))
    assert [r.id for r in foreign] == [their_reply]
    assert ours.require(our_reply).parent_id == prompt  # not under their reply
    assert ours.require(their_reply).parent_id == prompt
    assert ours.leaf_id == our_reply
    late = theirs.append_message(user("after the turn"))  # continues their reply, not our leaf
    ours.refresh()
    assert ours.leaf_id == our_reply and ours.get(late) is not None

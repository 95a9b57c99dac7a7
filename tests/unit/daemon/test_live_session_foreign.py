"""Another program appending during a daemon turn: the turn stays on its own chain, the editor is
told which entries were foreign (pi takes no lock on session files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_lsp.daemon.workspaces import Workspaces
from pi_lsp.devtools.builders import assistant, user
from pi_lsp.devtools.fake_openai import FakeOpenAI
from pi_lsp.devtools.fake_script import JsonObject, Script, Turn, message_text
from pi_lsp.session import SessionStore


async def test_a_turn_keeps_its_chain_when_another_writer_appends_during_it(
    tmp_path: Path, agent_dir: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store = SessionStore.create(str(project), directory=tmp_path / "sessions")
    store.append_message(user("first"))
    store.append_message(assistant("first answer"))
    store.append_model_change("openai", "fake-model")
    assert store.path is not None
    path = store.path
    store.close()
    foreign: list[str] = []

    def other_program(body: JsonObject) -> Turn | None:
        if "mine" in message_text(body["messages"][-1]):
            # A pi CLI resumed the file meanwhile (its leaf: our unanswered prompt) and ran a turn.
            other = SessionStore.open(path)
            foreign.append(other.append_message(user("theirs")))
            foreign.append(other.append_message(assistant("their answer")))
            other.close()
            return Turn(text="my answer")
        return None

    events: list[dict[str, Any]] = []
    with FakeOpenAI(Script(), responder=other_program) as fake:
        settings = {"apiBase": fake.base_url, "defaultModel": "openai/fake-model",
                    "retry": {"enabled": False}}  # fmt: skip
        (agent_dir / "settings.json").write_text(json.dumps(settings))
        workspaces = Workspaces(lambda _id, _seq, event: events.append(event), agent=agent_dir)
        workspaces.set_folders([(project.as_uri(), str(project))])
        live = await workspaces.open_session(str(path), project.as_uri())
        started = await live.prompt("mine")
        await live.turn_finished()
        mine = live.store.require(str(started["userEntryId"]))
        reply = live.store.children(mine.id)
        leaf = live.store.leaf_id
        await workspaces.close_all()

    assert len(foreign) == 2, [e for e in events if e["type"] in ("error", "message_end")]
    answers = [r for r in reply if r.role == "assistant"]
    assert [a.value["message"]["content"][0]["text"] for a in answers] == ["my answer"]
    assert leaf == answers[0].id  # the daemon's leaf stayed on its own chain
    theirs = SessionStore.open(path).require(foreign[0])
    assert theirs.parent_id == mine.id  # they hung under our prompt; we did not hang under them
    told = [e for e in events if e["type"] == "foreign_entries"]
    assert told == [{"type": "foreign_entries", "entryIds": foreign, "leafId": leaf}]
    kinds = [e["type"] for e in events]
    assert kinds.index("foreign_entries") < kinds.index("agent_end")

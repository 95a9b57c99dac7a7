"""Settings files (D7): pi's keys and defaults, layering, and bad values falling back."""

from __future__ import annotations

import json
from pathlib import Path

from pi_lsp.settings import Settings, load_settings, merge_layers


def test_defaults_are_pis() -> None:
    settings = Settings()
    assert (settings.compaction.reserve_tokens, settings.compaction.keep_recent_tokens) == (
        16384,
        20000,
    )
    assert (settings.retry.maxRetries, settings.retry.baseDelayMs, settings.retry.maxDelayMs) == (
        3,
        2000,
        60000,
    )
    assert settings.steeringMode == settings.followUpMode == "one-at-a-time"
    assert settings.branchSummary.reserve_tokens == 16384


def test_layers_merge_one_level_deep(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 500},
        "defaultModel": "openai/gpt-4o", "theme": "dark",
    }))  # fmt: skip
    project = tmp_path / "proj"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text(
        json.dumps({"compaction": {"keepRecentTokens": 700}})
    )
    settings, problems = load_settings(
        project, agent=agent, overrides={"retry": {"enabled": False}}
    )
    assert problems == []
    assert settings.compaction.reserve_tokens == 1000  # from the global file
    assert settings.compaction.keep_recent_tokens == 700  # project wins, key by key
    assert settings.defaultModel == "openai/gpt-4o"
    assert settings.retry.enabled is False and settings.retry.maxRetries == 3
    assert merge_layers([{"a": {"x": 1, "y": 2}}, {"a": {"y": 3}}, {"b": 1}]) == {
        "a": {"x": 1, "y": 3},
        "b": 1,
    }


def test_bad_values_fall_back_with_a_message(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({
        "compaction": {"reserveTokens": "lots", "keepRecentTokens": -5, "enabled": False},
        "steeringMode": "sometimes", "retry": 7,
    }))  # fmt: skip
    settings, problems = load_settings(tmp_path, agent=agent)
    assert (
        settings.compaction.reserve_tokens == 16384
        and settings.compaction.keep_recent_tokens == 20000
    )
    assert settings.compaction.enabled is False  # good values in the same object still apply
    assert settings.steeringMode == "one-at-a-time"
    assert settings.retry.maxRetries == 3
    joined = "\n".join(problems)
    assert "compaction.reserveTokens" in joined and "using 16384" in joined
    assert (
        "compaction.keepRecentTokens" in joined and "steeringMode" in joined and "retry:" in joined
    )
    assert len(problems) == 4


def test_unreadable_or_invalid_files_are_reported_and_ignored(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text("{not json")
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text("[1, 2]")
    settings, problems = load_settings(tmp_path, agent=agent)
    assert settings == Settings()
    assert any("not valid JSON" in p for p in problems) and any(
        "not a JSON object" in p for p in problems
    )
    assert (agent / "settings.json").read_text() == "{not json"  # never rewritten


def test_every_setting_is_described_in_the_schema() -> None:
    # editors show these descriptions (VS Code's pi.* settings are generated from the schema)
    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "schemas" / "settings.schema.json").read_text()
    )
    missing = [k for k, v in schema["properties"].items() if "description" not in v]
    for name, section in schema["$defs"].items():
        missing += [
            f"{name}.{k}"
            for k, v in section.get("properties", {}).items()
            if "description" not in v
        ]
    defs = schema["$defs"]
    sections = {
        k
        for k, v in schema["properties"].items()
        if "properties" in defs.get(v.get("$ref", "").rsplit("/", 1)[-1], {})
    }
    assert set(missing) == sections  # a section's description is its class docstring ($defs)
    assert all("description" in d for d in defs.values() if "properties" in d)

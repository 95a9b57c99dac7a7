"""Settings files (D7): pi's keys and defaults, layering, and bad values falling back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_lsp.settings import Settings, load_settings, merge_layers


def test_defaults_are_pis() -> None:
    settings = Settings()
    assert (settings.compaction.reserve_tokens, settings.compaction.keep_recent_tokens) == (
        16384,
        20000,
    )
    retry = settings.retry
    assert (retry.maxRetries, retry.baseDelayMs, retry.maxAgentDelayMs) == (3, 2000, 60000)
    assert retry.provider.maxRetryDelayMs == 60000
    assert retry.provider.timeoutMs is None and retry.provider.maxRetries is None
    assert settings.sessionDir is None and settings.defaultTools is None
    assert settings.default_tool_names() is None and settings.modelThinkingLevels == {}
    assert settings.steeringMode == settings.followUpMode == "one-at-a-time"
    assert settings.branchSummary.reserve_tokens == 16384


def test_layers_merge_at_every_depth(tmp_path: Path) -> None:
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
    deep = [{"a": {"b": {"x": 1, "y": 2}}}, {"a": {"b": {"y": 3}}}]  # pi 1.6.0: deepMergeSettings
    assert merge_layers(deep) == {"a": {"b": {"x": 1, "y": 3}}}


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


def _load(tmp_path: Path, user: dict[str, Any], project: dict[str, Any] | None = None) -> Settings:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    (agent / "settings.json").write_text(json.dumps(user))
    if project is not None:
        (tmp_path / ".pi").mkdir(exist_ok=True)
        (tmp_path / ".pi" / "settings.json").write_text(json.dumps(project))
        (agent / "trust.json").write_text(json.dumps({}))
    settings, problems = load_settings(tmp_path, agent=agent)
    assert problems == []
    return settings


def test_compaction_model_overrides_replace_the_token_settings_of_one_model(
    tmp_path: Path,
) -> None:
    settings = _load(tmp_path, {
        "compaction": {"reserveTokens": 9000, "keepRecentTokens": 800,
                       "modelOverrides": {"openai/small": {"reserveTokens": 120000}}},
    })  # fmt: skip
    small = settings.for_model("openai", "small").compaction
    assert (small.reserve_tokens, small.keep_recent_tokens) == (120000, 800)
    other = settings.for_model("openai", "big").compaction
    assert (other.reserve_tokens, other.keep_recent_tokens) == (9000, 800)
    assert settings.for_model("openai", "big") is settings


def test_retry_keys_of_pi_1_6_and_the_legacy_max_delay(tmp_path: Path) -> None:
    settings = _load(tmp_path, {"retry": {"maxAgentDelayMs": 1000, "maxDelayMs": 5000,
                                          "provider": {"timeoutMs": 30000, "maxRetries": 2}}})  # fmt: skip
    retry = settings.retry
    assert retry.maxAgentDelayMs == 1000
    assert (retry.provider.timeoutMs, retry.provider.maxRetries) == (30000, 2)
    assert retry.provider.maxRetryDelayMs == 5000  # pi's migration of retry.maxDelayMs
    both = _load(tmp_path, {"retry": {"maxDelayMs": 5, "provider": {"maxRetryDelayMs": 7}}})
    assert both.retry.provider.maxRetryDelayMs == 7  # the new key wins


def test_default_tools_replace_or_modify_pis_four(tmp_path: Path) -> None:
    assert _load(tmp_path, {"defaultTools": ["read", "grep"]}).default_tool_names() == (
        "read",
        "grep",
    )
    assert _load(tmp_path, {"defaultTools": ["+grep", "-bash"]}).default_tool_names() == (
        "read",
        "edit",
        "write",
        "grep",
    )
    assert _load(tmp_path, {"defaultTools": []}).default_tool_names() == ()
    layered = _load(tmp_path, {"defaultTools": ["read", "ls"]}, {"defaultTools": ["+find"]})
    assert layered.default_tool_names() == ("read", "ls", "find")  # a modifier list extends
    replaced = _load(tmp_path, {"defaultTools": ["read", "ls"]}, {"defaultTools": ["bash"]})
    assert replaced.default_tool_names() == ("bash",)


def test_thinking_levels_per_model_and_max(tmp_path: Path) -> None:
    settings = _load(tmp_path, {"defaultThinkingLevel": "max",
                                "modelThinkingLevels": {"openai/o9": "low"}})  # fmt: skip
    assert settings.defaultThinkingLevel == "max"
    assert settings.thinking_level_for("openai", "o9") == "low"
    assert settings.thinking_level_for("openai", "other") == "max"


def test_session_dir_needs_a_trusted_project(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"sessionDir": "~/all-sessions"}))
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"sessionDir": "leak"}))
    settings, problems = load_settings(tmp_path, agent=agent)
    assert settings.sessionDir == "~/all-sessions"  # the project's is ignored while untrusted
    assert any("sessionDir" in p and "not trusted" in p for p in problems), problems

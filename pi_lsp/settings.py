"""Settings: pi's settings files plus editor overrides, every field defaulted (decision D7).

Layers, lowest first: ``<agentDir>/settings.json``, ``<cwd>/.pi/settings.json``, then whatever the
editor sends. Objects merge one level deep (pi's rule). A value that does not fit its field is
reported as a problem naming the source and the key, and the default is used instead: a bad
setting never stops a turn. Keys pi_lsp does not know are ignored, so pi's own keys are safe.
This module only reads files; pi's runtime setters are not reproduced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pi_lsp.compaction.models import BranchSummarySettings, CompactionSettings
from pi_lsp.literals import EditMode, QueueMode, ThinkingLevel
from pi_lsp.session.paths import agent_dir


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class RetrySettings(_Section):
    """Retries of transient provider errors (spec 11)."""

    enabled: bool = True
    maxRetries: int = Field(default=3, ge=0)
    baseDelayMs: int = Field(default=2000, ge=0)
    """Delay before the first retry; doubled for each further one."""
    maxDelayMs: int = Field(default=60000, ge=0)
    """A provider asking to wait longer than this fails at once instead."""


class ImageSettings(_Section):
    """Image handling for reads and requests."""

    autoResize: bool = True
    blockImages: bool = False
    """Send ``Image reading is disabled.`` instead of images."""


Policy = Literal["ask", "allow", "deny"]


class PermissionSettings(_Section):
    """What the agent may do without asking (the editor asks the user for ``ask``)."""

    bash: Policy = "ask"
    """Running shell commands."""
    writeOutsideWorkspace: Policy = "ask"
    """Writing or editing files outside the workspace folders."""
    timeoutMs: int = Field(default=120_000, ge=0)
    """How long to wait for the user's answer; no answer means deny."""


class ModelOverride(_Section):
    """What litellm does not know about a model."""

    contextWindow: int | None = Field(default=None, gt=0)
    maxTokens: int | None = Field(default=None, gt=0)
    reasoning: bool | None = None


class Settings(_Section):
    """Every setting pi_lsp reads, with pi's defaults."""

    compaction: CompactionSettings = CompactionSettings()
    branchSummary: BranchSummarySettings = BranchSummarySettings()
    retry: RetrySettings = RetrySettings()
    images: ImageSettings = ImageSettings()
    steeringMode: QueueMode = "one-at-a-time"
    followUpMode: QueueMode = "one-at-a-time"
    defaultProvider: str | None = None
    defaultModel: str | None = None
    """``model`` or ``provider/model``; with ``defaultProvider`` when it has no slash."""
    defaultThinkingLevel: ThinkingLevel | None = None
    shellPath: str | None = None
    shellCommandPrefix: str | None = None
    thinkingBudgets: dict[str, int] | None = None
    models: dict[str, ModelOverride] = {}
    """Per ``provider/model`` overrides, e.g. the context window of a local model."""
    apiBase: str | None = None
    """Endpoint for the default provider; otherwise litellm's environment variables apply."""
    editMode: EditMode = "editor"
    """``editor``: edits to files open in the editor go through it (undoable, unsaved);
    ``disk``: always write files directly."""
    permissions: PermissionSettings = PermissionSettings()


M = TypeVar("M", bound=BaseModel)


def merge_layers(layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Later layers win; objects are merged one level deep, as pi merges its two files."""
    merged: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged


def _validated(model: type[M], data: Mapping[str, Any], where: str, problems: list[str]) -> M:
    """``model`` built from ``data`` field by field; a bad field falls back to its default."""
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        key = field.alias or name  # the file's spelling (pi's camelCase)
        if key not in data:
            continue
        raw = data[key]
        annotation = field.annotation
        nested = isinstance(annotation, type) and issubclass(annotation, BaseModel)
        if nested and isinstance(raw, dict):
            assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
            values[name] = _validated(annotation, raw, f"{where}{key}.", problems)
            continue
        try:  # validate this one field, every other one at its default
            values[name] = getattr(model.model_validate({key: raw}), name)
        except ValidationError as exc:
            detail = exc.errors()[0]["msg"]
            default = field.get_default(call_default_factory=True)
            shown = default.model_dump(by_alias=True) if isinstance(default, BaseModel) else default
            problems.append(f"{where}{key}: {detail}; using {json.dumps(shown)}")
    return model(**values)


def read_settings_file(path: Path, problems: list[str]) -> dict[str, Any]:
    """A settings file's object; missing → empty, unreadable or invalid → a problem and empty."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot read ({exc}); ignored")
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        problems.append(f"{path}: not valid JSON ({exc}); ignored")
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path}: not a JSON object; ignored")
        return {}
    return data


def load_settings(
    cwd: str | Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    agent: Path | None = None,
) -> tuple[Settings, list[str]]:
    """Settings for ``cwd`` and the problems found (each names its source and key)."""
    problems: list[str] = []
    layers: list[Mapping[str, Any]] = [
        read_settings_file((agent or agent_dir()) / "settings.json", problems),
        read_settings_file(Path(cwd) / ".pi" / "settings.json", problems),
    ]
    if overrides:
        layers.append(overrides)
    settings = _validated(Settings, merge_layers(layers), "", problems)
    return settings, problems

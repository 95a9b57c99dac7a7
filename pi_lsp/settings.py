"""Settings: pi's settings files plus editor overrides, every field defaulted (decision D7).

Layers, lowest first: ``<agentDir>/settings.json``, ``<cwd>/.pi/settings.json``, then whatever the
editor sends. The project's file is the folder's, not the user's: what in it matters for safety
applies only to a trusted project (see ``safety``). Objects merge at every depth, and a
``defaultTools`` list of only ``+name``/``-name`` entries extends the one below it (pi 1.6.0's
rules); each layer's legacy ``retry.maxDelayMs`` is read as ``retry.provider.maxRetryDelayMs``,
as pi migrates it. A value that does not fit its field is reported as a problem naming the
source and the key, and the default is used instead: a bad setting never stops a turn. Keys
pi_lsp does not know are ignored, so pi's own keys are safe. This module only reads files; pi's
runtime setters are not reproduced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pi_lsp import safety
from pi_lsp.compaction.models import BranchSummarySettings, CompactionSettings
from pi_lsp.literals import DEFAULT_ACTIVE_TOOLS, EditMode, QueueMode, ThinkingLevel
from pi_lsp.safety import AGENT_ONLY_KEYS, PROTECTED_DEFAULTS, SECRET_DEFAULTS
from pi_lsp.session.paths import agent_dir


class _Section(BaseModel):
    # attribute docstrings become the schema's descriptions, which editors show (VS Code's
    # pi.* settings are generated from schemas/settings.schema.json)
    model_config = ConfigDict(extra="ignore", frozen=True, use_attribute_docstrings=True)


class ProviderRetrySettings(_Section):
    """What each single model request may do (pi 1.6.0's ``retry.provider``)."""

    timeoutMs: int | None = Field(default=None, ge=0)
    """Timeout of one model request in milliseconds (unset: the provider library's default)."""
    maxRetries: int | None = Field(default=None, ge=0)
    """Retries the provider library makes inside one request (unset: none, pi_lsp retries)."""
    maxRetryDelayMs: int = Field(default=60000, ge=0)
    """A provider asking to wait longer than this (``retry-after``) fails at once instead."""


class RetrySettings(_Section):
    """Retries of transient provider errors (spec 11, pi 1.6.0's keys)."""

    enabled: bool = True
    """Retry transient provider errors (rate limits, overload, dropped connections)."""
    maxRetries: int = Field(default=3, ge=0)
    """Retries before the turn ends with the error."""
    baseDelayMs: int = Field(default=2000, ge=0)
    """Delay before the first retry; doubled for each further one."""
    maxAgentDelayMs: int = Field(default=60000, ge=0)
    """The longest wait between two retries (the doubling stops there)."""
    provider: ProviderRetrySettings = ProviderRetrySettings()
    """Each single request's limits: ``timeoutMs``, ``maxRetries`` and ``maxRetryDelayMs`` (the
    longest ``retry-after`` waited for; was ``retry.maxDelayMs``)."""


class CompactionTokens(_Section):
    """Token settings of one model that replace the ``compaction`` ones (unset: those apply)."""

    reserveTokens: int | None = Field(default=None, ge=0)
    """Tokens kept free for the reply with this model."""
    keepRecentTokens: int | None = Field(default=None, ge=0)
    """Tokens of recent history kept verbatim with this model."""


class CompactionConfig(CompactionSettings):
    """pi's ``compaction.*`` settings with pi 1.6.0's per-model overrides."""

    model_overrides: dict[str, CompactionTokens] = Field(default={}, alias="modelOverrides")
    """Per ``provider/modelId`` (exact) token settings, e.g. a smaller reserve for a small model."""

    def for_model(self, provider: str, model_id: str) -> CompactionConfig:
        """The settings in force with this model: its override, else the ordinary value."""
        override = self.model_overrides.get(f"{provider}/{model_id}")
        if override is None:
            return self
        update: dict[str, int] = {}
        if override.reserveTokens is not None:
            update["reserve_tokens"] = override.reserveTokens
        if override.keepRecentTokens is not None:
            update["keep_recent_tokens"] = override.keepRecentTokens
        return self.model_copy(update=update)


class ImageSettings(_Section):
    """Image handling for reads and requests."""

    autoResize: bool = True
    """Scale large images down before sending them to the model."""
    blockImages: bool = False
    """Send ``Image reading is disabled.`` instead of images."""


Policy = Literal["ask", "allow", "deny"]


class PermissionSettings(_Section):
    """What the agent may do without asking (the editor asks the user for ``ask``).

    See docs/security.md. A project's own settings file cannot relax any of these unless the
    user trusted the project (project trust: ``pi_lsp.safety``).
    """

    bash: Policy = "ask"
    """Running shell commands."""
    writeOutsideWorkspace: Policy = "ask"
    """Writing or editing files outside the workspace folders (or any file with several names,
    or any file at all when no folder is open)."""
    writeProtected: Policy = "ask"
    """Writing or editing files inside a folder that run code or configure tools (see
    ``protectedPaths``; the agent directory is always protected)."""
    readSecret: Policy = "ask"
    """Reading secret sources: process environments (``/proc/<pid>/environ``), pi's
    ``auth.json`` and ``models.json``, and files matching ``secretPaths``."""
    protectedPaths: list[str] = list(PROTECTED_DEFAULTS)
    """Glob patterns over path components inside a folder (``.git`` covers everything in it)."""
    secretPaths: list[str] = list(SECRET_DEFAULTS)
    """Glob patterns over path components (``*.pem``, ``.ssh/id_*``) of files read anywhere."""
    timeoutMs: int = Field(default=120_000, ge=0)
    """How long to wait for the user's answer; no answer means deny."""


class ModelOverride(_Section):
    """What litellm does not know about a model."""

    contextWindow: int | None = Field(default=None, gt=0)
    """Context window in tokens."""
    maxTokens: int | None = Field(default=None, gt=0)
    """Most tokens the model may answer with."""
    reasoning: bool | None = None
    """Whether the model can think (offers thinking levels above ``off``)."""


class Settings(_Section):
    """Every setting pi_lsp reads, with pi's defaults."""

    compaction: CompactionConfig = CompactionConfig()
    branchSummary: BranchSummarySettings = BranchSummarySettings()
    retry: RetrySettings = RetrySettings()
    images: ImageSettings = ImageSettings()
    steeringMode: QueueMode = "one-at-a-time"
    """How queued steering messages are delivered: ``all`` at once or ``one-at-a-time``."""
    followUpMode: QueueMode = "one-at-a-time"
    """How queued follow-up messages are delivered: ``all`` at once or ``one-at-a-time``."""
    defaultProvider: str | None = None
    """Provider of ``defaultModel`` when it names no provider."""
    defaultModel: str | None = None
    """``model`` or ``provider/model``; with ``defaultProvider`` when it has no slash."""
    defaultThinkingLevel: ThinkingLevel | None = None
    """Thinking level of new sessions (``medium`` when unset), clamped to the model's."""
    modelThinkingLevels: dict[str, ThinkingLevel] = {}
    """Per ``provider/modelId`` thinking level of a new session or of a switch to that model
    (before ``defaultThinkingLevel``)."""
    defaultTools: list[str] | None = None
    """Tools active at start: plain names replace ``read, bash, edit, write``; ``+name`` adds
    one and ``-name`` removes one (a project's list of only those extends the user's)."""
    sessionDir: str | None = None
    """One folder for the session files of every project instead of
    ``<agentDir>/sessions/--<cwd>--/`` (``~`` expanded, relative to the project folder;
    ``$PI_CODING_AGENT_SESSION_DIR`` wins). Only the user's file and a trusted project's count."""
    shellPath: str | None = None
    """Shell the ``bash`` tool runs commands with."""
    shellCommandPrefix: str | None = None
    """Text put before every ``bash`` command (e.g. ``source .venv/bin/activate &&``)."""
    thinkingBudgets: dict[str, int] | None = None
    """Thinking tokens per level, e.g. ``{"low": 2048, "high": 16384}``."""
    models: dict[str, ModelOverride] = {}
    """Per ``provider/model`` overrides, e.g. the context window of a local model."""
    apiBase: str | None = None
    """Endpoint for the default provider; otherwise litellm's environment variables apply."""
    editMode: EditMode = "editor"
    """``editor``: edits to files open in the editor go through it (undoable, unsaved);
    ``disk``: always write files directly."""
    permissions: PermissionSettings = PermissionSettings()
    defaultProjectTrust: Literal["ask", "always", "never"] = "ask"
    """Whether a project's own safety settings apply when no decision is saved in
    ``<agentDir>/trust.json``: ``always`` applies them, ``ask`` and ``never`` do not (the daemon
    cannot prompt). Read from the agent directory's file only (pi's rule)."""

    def for_model(self, provider: str, model_id: str) -> Settings:
        """These settings with ``compaction`` resolved for one model (its ``modelOverrides``)."""
        compaction = self.compaction.for_model(provider, model_id)
        if compaction is self.compaction:
            return self
        return self.model_copy(update={"compaction": compaction})

    def thinking_level_for(self, provider: str, model_id: str) -> ThinkingLevel | None:
        """``modelThinkingLevels["provider/modelId"]``, else ``defaultThinkingLevel``."""
        return self.modelThinkingLevels.get(f"{provider}/{model_id}") or self.defaultThinkingLevel

    def default_tool_names(self) -> tuple[str, ...] | None:
        """pi's ``getDefaultTools()``: the resolved ``defaultTools``, None when unset."""
        if self.defaultTools is None:
            return None
        entries = self.defaultTools
        plain = [e for e in entries if not _is_modifier(e)]
        tools = plain if plain or not entries else list(DEFAULT_ACTIVE_TOOLS)
        for entry in entries:
            name = entry[1:]
            if entry.startswith("+") and name and name not in tools:
                tools.append(name)
            elif entry.startswith("-") and name in tools:
                tools.remove(name)
        return tuple(tools)


def _is_modifier(entry: object) -> bool:
    return isinstance(entry, str) and entry.startswith(("+", "-"))


M = TypeVar("M", bound=BaseModel)


def merge_layers(layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Later layers win; objects merge at every depth, as pi 1.6.0's ``deepMergeSettings``.

    A ``defaultTools`` list of only ``+name``/``-name`` entries is appended to the one below.
    """
    merged: dict[str, Any] = {}
    for layer in layers:
        tools = _merged_tools(merged.get("defaultTools"), layer.get("defaultTools"))
        merged = _deep_merge(merged, layer)
        if tools is not None:
            merged["defaultTools"] = tools
    return merged


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            out[key] = _deep_merge(below, value)
        else:
            out[key] = value
    return out


def _merged_tools(base: Any, over: Any) -> Any:
    if over is None:
        return base
    if isinstance(base, list) and isinstance(over, list) and all(map(_is_modifier, over)):
        return [*base, *over]
    return over


def _migrated(layer: dict[str, Any]) -> dict[str, Any]:
    """pi's settings migration: ``retry.maxDelayMs`` → ``retry.provider.maxRetryDelayMs``."""
    retry = layer.get("retry")
    if not isinstance(retry, dict) or "maxDelayMs" not in retry:
        return layer
    retry = dict(retry)
    legacy = retry.pop("maxDelayMs")
    provider = retry.get("provider")
    provider = dict(provider) if isinstance(provider, dict) else {}
    if isinstance(legacy, int | float) and "maxRetryDelayMs" not in provider:
        provider["maxRetryDelayMs"] = legacy
        retry["provider"] = provider
    return {**layer, "retry": retry}


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
    agent = agent or agent_dir()
    user = read_settings_file(agent / "settings.json", problems)
    project_file = Path(cwd) / ".pi" / "settings.json"
    project = read_settings_file(project_file, problems)
    if project and not safety.is_trusted(
        cwd, agent, user.get("defaultProjectTrust", "ask"), problems
    ):
        defaults = PermissionSettings().model_dump()
        project, dropped = safety.untrusted_layer(project, user, defaults)
        if dropped:
            problems.append(
                f"{project_file}: {', '.join(dropped)} ignored: this project is not trusted "
                f"(trust it with `pi-lsp trust {cwd}` or pi's /trust; see docs/security.md)"
            )
    project = {k: v for k, v in project.items() if k not in AGENT_ONLY_KEYS}
    editor = {k: v for k, v in (overrides or {}).items() if k not in AGENT_ONLY_KEYS}
    layers: list[Mapping[str, Any]] = [_migrated(user), _migrated(project), _migrated(editor)]
    settings = _validated(Settings, merge_layers(layers), "", problems)
    return settings, problems

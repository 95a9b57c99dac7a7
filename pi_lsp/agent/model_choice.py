"""Which models a user has: provider keys, litellm's model lists (cached), the initial choice.

**The initial model**, when none is named: pi 1.6.0 (``createAgentSession`` in
``dist/core/sdk.js``, ``findInitialModel`` and ``defaultModelPerProvider`` in
``dist/core/model-resolver.js``) picks, in this order:

1. the model the caller names (``--model``, ``pi/session/setModel``), whatever its key;
2. for a session that already has messages, the model on its active path, if its provider has a
   key; otherwise pi notes "Could not restore model X" and goes on;
3. the settings' ``defaultModel``, if its provider has a key;
4. the first provider of :data:`DEFAULT_MODEL_PER_PROVIDER`, in that order, that has a key: its
   default model (every one of them is in pi's catalog, so pi's "available model with that id"
   is this provider's default);
5. else the first other model pi knows whose provider has a key: for pi_lsp, the first
   ``models`` setting;
6. else none ("No model selected").

A provider "has a key" when one of pi's environment variables for it is set
(``getApiKeyEnvVars``/``getEnvApiKey`` in pi-ai's ``env-api-keys.js``: Amazon Bedrock and Vertex
take their ambient credentials), or the variable litellm reads for it
(:data:`pi_lsp.agent.llm.PROVIDER_KEY_ENV`), since pi_lsp calls through litellm. pi's
``auth.json`` and ``models.json`` credentials do not count: pi_lsp does not send them. A provider
neither program names a variable for (``ollama``, ``hosted_vllm``…) counts as keyed: litellm calls
such local servers without one, where pi would need a placeholder ``apiKey`` in ``models.json``.
Unlike pi, pi_lsp has no catalog of its own, so a named model is never refused for being unknown.

**The model lists.** ``pi/models/list`` offers litellm's chat models of every keyed provider: its
``models_by_provider`` filtered to ``mode == "chat"``. Only litellm computes that (it adds
aliases and merges provider families at import), and importing it costs ~3 s idle and 20 s or
more on a loaded machine, which a user waited through with no answer on the first picker.
So the lists, once computed, are written to a cache file named after the litellm install
(version, and size and time of its bundled model table) under ``$PI_LSP_CACHE_DIR``, else
``$XDG_CACHE_HOME/pi-lsp``, else ``~/.cache/pi-lsp``; a later daemon reads that file
(milliseconds) instead of importing litellm. Once litellm is imported it answers itself, so
models registered at run time count. The daemon's start-up import (after ``initialized``)
writes the file, so usually even the first picker of the first day finds it.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from pi_lsp.agent.llm import PROVIDER_KEY_ENV, is_loaded, litellm_module, load_litellm
from pi_lsp.agent.models import TABLE, ModelRef
from pi_lsp.settings import Settings

logger = logging.getLogger(__name__)

DEFAULT_MODEL_PER_PROVIDER: Mapping[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-5-5",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-5-5",
    "openai": "gpt-6.2-sol",
    "azure": "gpt-6.2-sol",
    "openai-codex": "gpt-6.2-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-4-argon",
    "google-vertex": "gemini-4-argon",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.7-code",
    "vercel-ai-gateway": "zai/glm-5.3",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M3",
    "minimax-cn": "MiniMax-M3",
    "moonshotai": "kimi-k2.7-code",
    "moonshotai-cn": "kimi-k2.7-code",
    "huggingface": "moonshotai/Kimi-K2.7-Code",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.3",
    "opencode": "kimi-k2.7-code",
    "opencode-go": "kimi-k3.1-pro",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.7-code",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "qwen-token-plan": "qwen3.8-max",
    "qwen-token-plan-cn": "qwen3.8-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "qwen-token-plan-individual-cn": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}
"""pi 1.6.0's ``defaultModelPerProvider``, in its order (the order decides between keys)."""

_PI_KEY_ENV: Mapping[str, tuple[str, ...]] = {
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "anthropic": ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "ant-ling": ("ANT_LING_API_KEY",),
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": (
        "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
        "QWEN_TOKEN_PLAN_API_KEY",
    ),
    "qwen-token-plan-individual-cn": (
        "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
        "QWEN_TOKEN_PLAN_CN_API_KEY",
    ),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
}
"""pi-ai 1.6.0's ``getApiKeyEnvVars``: the variables that give a provider a key."""

_BEDROCK_ENV = (
    ("AWS_PROFILE",),
    ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
    ("AWS_BEARER_TOKEN_BEDROCK",),
    ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",),
    ("AWS_CONTAINER_CREDENTIALS_FULL_URI",),
    ("AWS_WEB_IDENTITY_TOKEN_FILE",),
)
"""Amazon Bedrock's ambient credentials (each group complete is enough), as pi-ai checks."""


def key_variables(provider: str) -> tuple[str, ...]:
    """The variables that give ``provider`` a key: pi's, then litellm's (for messages)."""
    names = list(_PI_KEY_ENV.get(provider, ()))
    litellm = PROVIDER_KEY_ENV.get(provider)
    ambient = provider in ("amazon-bedrock", "google-vertex")  # litellm's names a file or pair
    if litellm and not ambient and litellm not in names:
        names.append(litellm)
    return tuple(names)


def has_key(provider: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``provider`` has credentials in the environment (the module docstring's rule)."""
    env = os.environ if environ is None else environ
    if any(env.get(name) for name in key_variables(provider)):
        return True
    if provider == "amazon-bedrock":
        return any(all(env.get(name) for name in group) for group in _BEDROCK_ENV)
    if provider == "google-vertex":  # Application Default Credentials with a project and location
        credentials = env.get("GOOGLE_APPLICATION_CREDENTIALS")
        adc = credentials or os.path.join(
            os.path.expanduser("~"), ".config", "gcloud", "application_default_credentials.json"
        )
        project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCLOUD_PROJECT")
        return bool(project and env.get("GOOGLE_CLOUD_LOCATION") and os.path.exists(adc))
    return not _names_credentials(provider)


def _names_credentials(provider: str) -> bool:
    """Whether pi or litellm names a way to authenticate ``provider`` (else it needs none)."""
    return (
        provider in _PI_KEY_ENV
        or provider in PROVIDER_KEY_ENV
        or provider in DEFAULT_MODEL_PER_PROVIDER
    )


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The model a session starts with, and what pi would tell the user about it."""

    ref: ModelRef | None
    note: str | None = None
    """pi's ``modelFallbackMessage`` when the session's model could not be restored."""


def initial_model(
    *,
    explicit: ModelRef | None,
    session_model: ModelRef | None,
    has_messages: bool,
    default: ModelRef | None,
    configured: Sequence[ModelRef] = (),
    keyed: Callable[[str], bool] = has_key,
) -> ModelChoice:
    """pi 1.6.0's choice (the module docstring's steps); ``configured``: the ``models`` setting."""
    if explicit is not None:
        return ModelChoice(explicit)
    note = None
    if has_messages and session_model is not None:
        if keyed(session_model.provider):
            return ModelChoice(session_model)
        note = f"Could not restore model {session_model}"
    picked = _pick(default, configured, keyed)
    if picked is None:
        return ModelChoice(None, note and f"{note}. No model available")
    return ModelChoice(picked, note and f"{note}. Using {picked}")


def _pick(
    default: ModelRef | None, configured: Sequence[ModelRef], keyed: Callable[[str], bool]
) -> ModelRef | None:
    if default is not None and keyed(default.provider):
        return default
    for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
        if keyed(provider):
            return ModelRef(provider, model_id)
    return next((ref for ref in configured if keyed(ref.provider)), None)


def settings_default(settings: Settings) -> ModelRef | None:
    """``defaultModel`` (``provider/model``, or ``model`` with ``defaultProvider``), or None.

    As in pi, a bare model id without ``defaultProvider`` names no model.
    """
    if not settings.defaultModel:
        return None
    try:
        return ModelRef.parse(settings.defaultModel, default_provider=settings.defaultProvider)
    except ValueError:
        return None


def configured_models(settings: Settings) -> list[ModelRef]:
    """The ``models`` setting's ``provider/model`` keys, in order (pi's models.json models)."""
    refs = []
    for name in settings.models:
        provider, slash, model_id = name.partition("/")
        if slash and provider and model_id:
            refs.append(ModelRef.parse(name))
    return refs


def no_model_message(default: ModelRef | None) -> str:
    """Why no model was chosen, and what to set (the error of a prompt without a model)."""
    head = "No model selected"
    if default is not None:
        names = " or ".join(key_variables(default.provider)) or "its credentials"
        return f"{head}: defaultModel {default} has no key (set {names}), and no provider has one"
    return (
        f"{head}: no provider key is set (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, "
        "GEMINI_API_KEY); set one, pass --model provider/model or set defaultModel"
    )


ChatModels = dict[str, list[str]]
"""litellm provider name -> model ids (without the provider prefix), sorted."""

_FORMAT = 1


def cache_dir() -> Path:
    """Where the cache file lives (see the module docstring)."""
    if explicit := os.environ.get("PI_LSP_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pi-lsp"


def cache_file() -> Path | None:
    """The cache file of the installed litellm, or None when litellm is not installed."""
    install = _install()
    return None if install is None else cache_dir() / f"litellm-chat-models-{install}.json"


@lru_cache(maxsize=1)
def _install() -> str | None:
    """``<version>-<table size>-<table mtime_ns>`` of the installed litellm.

    Looked up once per process: reading the package metadata costs milliseconds.
    """
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    try:
        version = importlib.metadata.version("litellm")
        table = (Path(spec.origin).parent / TABLE).stat()
    except (importlib.metadata.PackageNotFoundError, OSError):
        return None
    return f"{version}-{table.st_size}-{table.st_mtime_ns}"


def from_litellm(litellm: ModuleType) -> ChatModels:
    """Every provider's chat models, as litellm lists them."""
    by_provider: dict[str, Any] = getattr(litellm, "models_by_provider", {})
    cost: dict[str, Any] = getattr(litellm, "model_cost", {})
    lists: ChatModels = {}
    for provider, models in by_provider.items():
        ids = {
            model_id.split("/", 1)[-1] if "/" in model_id else model_id
            for model_id in models
            if (cost.get(model_id) or {}).get("mode", "chat") == "chat"
        }
        if ids:
            lists[str(provider)] = sorted(ids)
    return lists


_read: dict[Path, ChatModels] = {}
"""Cache files already read by this process (a file's content never changes: its name is the
litellm install)."""


def read_cache() -> ChatModels | None:
    """The cached lists, or None (no file, another litellm, unreadable)."""
    path = cache_file()
    if path is None:
        return None
    if (known := _read.get(path)) is not None:
        return known
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    lists = data.get("providers")
    if not isinstance(lists, dict):
        return None
    _read[path] = lists
    return lists


def write_cache(lists: ChatModels) -> None:
    """Write the lists atomically (a failure is only logged: the cache is an optimisation)."""
    path = cache_file()
    if path is None:
        return
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".models-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"format": _FORMAT, "providers": lists}, out)
        os.replace(tmp, path)
        _read.pop(path, None)
    except OSError as exc:
        logger.info("cannot write the model list cache %s: %s", path, exc)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def cached_or_loaded() -> ChatModels | None:
    """The lists without importing litellm: litellm's own if imported, else the cache."""
    if is_loaded():
        return from_litellm(litellm_module())
    return read_cache()


async def chat_models() -> ChatModels:
    """The lists: from litellm once imported, else the cache, else after importing litellm.

    Computing them from litellm also writes the cache when it is missing.
    """
    if not is_loaded() and (cached := read_cache()) is not None:
        return cached
    lists = from_litellm(await load_litellm())
    path = cache_file()
    if path is not None and not path.exists():
        write_cache(lists)
    return lists

"""Which model a session starts with when none is named: pi 1.6.0's rule, and provider keys.

pi 1.6.0 (``createAgentSession`` in ``dist/core/sdk.js``, ``findInitialModel`` and
``defaultModelPerProvider`` in ``dist/core/model-resolver.js``) picks, in this order:

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
Pure apart from reading the environment.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pi_lsp.agent.llm import PROVIDER_KEY_ENV
from pi_lsp.agent.models import ModelRef
from pi_lsp.settings import Settings

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

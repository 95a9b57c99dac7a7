"""The model table read without litellm agrees with litellm's own model info."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pi_lsp.agent.llm import litellm_module
from pi_lsp.agent.models import ModelRef, bundled_model_data

MODELS = [
    "openai/gpt-4o",
    "openai/gpt-5",
    "anthropic/claude-sonnet-4-5",
    "google/gemini-2.5-pro",
    "openai/o3",
]


@pytest.mark.parametrize("name", MODELS)
def test_bundled_table_matches_litellm(name: str) -> None:
    ref = ModelRef.parse(name)
    bundled = bundled_model_data(ref.litellm_provider, ref.model_id)
    info = litellm_module().get_model_info(ref.litellm_model)
    assert bundled, name
    assert bundled["max_input_tokens"] == info["max_input_tokens"]
    assert bundled.get("input_cost_per_token") == info.get("input_cost_per_token")


def test_unknown_models_have_no_entry() -> None:
    assert bundled_model_data("openai", "no-such-model-xyz") == {}
    assert bundled_model_data("anthropic", "gpt-4o") == {}  # another provider's model


def test_describing_a_model_does_not_import_litellm() -> None:
    code = (
        "import sys; from pi_lsp.agent.models import ModelRef, resolve_model; "
        "info = resolve_model(ModelRef.parse('anthropic/claude-sonnet-4-5')); "
        "assert info.context_window == 200000 and info.reasoning, info; "
        "sys.exit(1 if 'litellm' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0

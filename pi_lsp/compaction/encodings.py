"""tiktoken encodings, loaded lazily and offline from the BPE files litellm ships.

tiktoken downloads its BPE files on first use unless ``TIKTOKEN_CACHE_DIR`` points at a copy.
litellm (a dependency anyway) ships cl100k_base and o200k_base in its package folder; this module
points tiktoken there before the first load, without importing litellm (that costs seconds).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import Any

O200K_MODELS = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "o1", "o3", "o4")
"""Model-id prefixes whose tokenizer is o200k_base; every other model is counted with cl100k_base
(close enough for Claude, Gemini and the rest, which publish no offline tokenizer)."""


def encoding_name_for_model(model_id: str | None) -> str:
    """The tiktoken encoding that fits a model id (``provider/`` prefixes are ignored)."""
    name = (model_id or "").rsplit("/", 1)[-1].lower()
    if name.startswith(O200K_MODELS):
        return "o200k_base"
    return "cl100k_base"


def bundled_bpe_dir() -> str | None:
    """litellm's folder of tiktoken BPE files, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    folder = os.path.join(os.path.dirname(spec.origin), "litellm_core_utils", "tokenizers")
    return folder if os.path.isdir(folder) else None


@functools.cache
def get_encoding(name: str) -> Any:
    """The tiktoken ``Encoding`` called ``name``, loaded once per process, offline.

    Raises:
        Exception: whatever tiktoken raises when the BPE file is neither bundled nor reachable.
    """
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = bundled_bpe_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = folder
    import tiktoken  # deferred: only the tiktoken estimator needs it

    return tiktoken.get_encoding(name)

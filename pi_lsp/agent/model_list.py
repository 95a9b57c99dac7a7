"""litellm's chat models of each provider, for the model pickers, without waiting for litellm.

``pi/models/list`` offers litellm's chat models of every keyed provider: its
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
from pathlib import Path
from types import ModuleType
from typing import Any

from pi_lsp.agent.llm import is_loaded, litellm_module, load_litellm
from pi_lsp.agent.models import TABLE

logger = logging.getLogger(__name__)

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
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    try:
        version = importlib.metadata.version("litellm")
        table = (Path(spec.origin).parent / TABLE).stat()
    except (importlib.metadata.PackageNotFoundError, OSError):
        return None
    return cache_dir() / f"litellm-chat-models-{version}-{table.st_size}-{table.st_mtime_ns}.json"


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

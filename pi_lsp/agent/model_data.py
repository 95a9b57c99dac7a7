"""litellm's model table read straight from the JSON file it ships, without importing litellm.

Describing a model (context window, prices, reasoning) only needs that table, but importing
litellm costs seconds; opening a session in the daemon should not wait for it. Once litellm is
imported (for the first model call) its own ``get_model_info`` takes over, so models registered
at run time are seen too.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

TABLE = "model_prices_and_context_window_backup.json"


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return {}
    try:
        data = json.loads((Path(spec.origin).parent / TABLE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        logger.warning("cannot read litellm's model table: %s", exc)
        return {}
    return data if isinstance(data, dict) else {}


def bundled_model_data(litellm_provider: str, model_id: str) -> dict[str, Any]:
    """The table's entry for a model of a provider (litellm's spelling), or ``{}``."""
    table = _table()
    for key in (f"{litellm_provider}/{model_id}", model_id):
        entry = table.get(key)
        if isinstance(entry, dict) and entry.get("litellm_provider") == litellm_provider:
            return dict(entry)
    return {}

"""The one place that imports litellm, lazily, configured for pi_lsp.

Importing litellm costs ~3 s and 150 MB, so nothing imports it at module level: code about to call
a model awaits :func:`load_litellm` (the import runs in a worker thread, off the event loop) or,
outside an event loop, calls :func:`litellm_module`. Before the first import the offline switches
are set with ``os.environ.setdefault`` (an explicit environment wins) so litellm never fetches its
cost map or other files from the network; after it, ``suppress_debug_info`` keeps litellm from
printing to stdout, which would corrupt an LSP stream, and litellm's aiohttp transport is turned
off: closing a half-read aiohttp-backed stream hands the connection back to its pool instead of
closing it, so an aborted reply would keep streaming (and costing) on the provider's side; httpx's
own transport closes the socket.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from types import ModuleType

_OFFLINE_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
_lock = threading.Lock()
_module: ModuleType | None = None


def litellm_module() -> ModuleType:
    """The configured litellm module, imported on first use (blocks for seconds that time)."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            for name, value in _OFFLINE_ENV.items():
                os.environ.setdefault(name, value)
            module = importlib.import_module("litellm")
            module.suppress_debug_info = True  # type: ignore[attr-defined]
            module.disable_aiohttp_transport = True  # type: ignore[attr-defined]
            _module = module
    return _module


async def load_litellm() -> ModuleType:
    """The configured litellm module; the first call imports it in a thread (loop stays live)."""
    if _module is not None:
        return _module
    return await asyncio.to_thread(litellm_module)


def is_loaded() -> bool:
    """Whether litellm has been imported by this module (for start-up checks and tests)."""
    return _module is not None

"""Importing pi_lsp.agent, any of its submodules or the dev tools must not import litellm (~3 s)."""

from __future__ import annotations

import os
import sys

from tests.deadlines import run_child

IMPORT_ALL = """
import importlib, pkgutil, sys
import pi_lsp.agent, pi_lsp.devtools
names = [m.name for p in (pi_lsp.agent, pi_lsp.devtools) for m in pkgutil.walk_packages(p.__path__, p.__name__ + ".")]
for name in names:
    importlib.import_module(name)
print(len(names), sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "openai")))
"""


def _run(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    done = run_child([sys.executable, "-c", code], env=env, check=True)
    return done.stdout.strip()


def test_agent_modules_do_not_import_litellm() -> None:
    count, loaded = _run(IMPORT_ALL).split(" ", 1)
    assert int(count) >= 11  # the submodules were found (9 in agent, 2 in devtools today)
    assert loaded == "[]"


def test_loading_litellm_configures_it_offline() -> None:
    code = (
        "import os, sys\n"
        "from pi_lsp.agent.llm import is_loaded, litellm_module\n"
        "assert not is_loaded() and 'litellm' not in sys.modules\n"
        "m = litellm_module()\n"
        "print(is_loaded(), 'litellm' in sys.modules, m.suppress_debug_info, m.disable_aiohttp_transport,"
        " os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], os.environ['LITELLM_OFFLINE_MODE'])\n"
    )
    assert _run(code) == "True True True True True true"

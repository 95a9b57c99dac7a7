# pi_lsp developer tasks. `make help` lists them.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: help demo test lint typecheck pytest test-nvim bench schemas clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP) ## run the main job (offline)
	$(PY) -m pi_lsp.demo

test: $(STAMP) lint typecheck pytest test-nvim ## every check: ruff, mypy --strict, pytest, Neovim

lint: $(STAMP) ## ruff
	$(VENV)/bin/ruff check pi_lsp tests bench
	$(VENV)/bin/ruff format --check pi_lsp tests bench

typecheck: $(STAMP) ## mypy --strict on pi_lsp/
	$(VENV)/bin/mypy

pytest: $(STAMP) ## the test suite (without the Neovim tests: test-nvim runs them)
	$(PY) -m pytest --ignore=tests/nvim

test-nvim: $(STAMP) ## the Neovim plugin in real Neovim 0.11.4 (pynvim, the real daemon)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest tests/nvim

bench: $(STAMP) ## benchmarks; results go to docs/benchmarks.md by hand
	$(PY) -m bench

schemas: $(STAMP) ## regenerate schemas/ from the pydantic models, and the Lua types from them
	$(PY) -m pi_lsp.schemas_gen
	$(PY) -m pi_lsp.devtools.lua_types

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

# pi_lsp developer tasks. `make help` lists them.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: help demo test lint typecheck pytest bench schemas clean acp-ts

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP) ## run the main job (offline)
	$(PY) -m pi_lsp.demo

test: $(STAMP) lint typecheck pytest ## every check: ruff, mypy --strict, pytest

lint: $(STAMP) ## ruff
	$(VENV)/bin/ruff check pi_lsp tests bench
	$(VENV)/bin/ruff format --check pi_lsp tests bench

typecheck: $(STAMP) ## mypy --strict on pi_lsp/
	$(VENV)/bin/mypy

ACP_TS := tests/acp_ts/node_modules/.installed

$(ACP_TS): tests/acp_ts/package.json tests/acp_ts/package-lock.json
	cd tests/acp_ts && npm ci --no-audit --no-fund
	touch $(ACP_TS)

acp-ts: $(ACP_TS) ## install the TypeScript ACP test client (npm ci)

pytest: $(STAMP) $(ACP_TS) ## the test suite
	$(PY) -m pytest

bench: $(STAMP) ## benchmarks; results go to docs/benchmarks.md by hand
	$(PY) -m bench

schemas: $(STAMP) ## regenerate schemas/ from the pydantic models
	$(PY) -m pi_lsp.schemas_gen

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

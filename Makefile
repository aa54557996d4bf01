# res-repro: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
CLI := $(VENV)/bin/res-repro
STAMP := $(VENV)/.installed

.PHONY: help install system-deps test lint format table1 table3 table3c table_a7 res-depth tables check bench mlflow-ui clean

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "} {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

system-deps: ## Install bubblewrap and busybox-static (apt-get where possible)
	@bash scripts/install_system_deps.sh

install: $(STAMP) system-deps ## Create the virtual environment and install everything

test: install ## Run the test suite
	$(PY) -m pytest -q

lint: install ## Check style with ruff
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install ## Reformat the code with ruff
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

table1: install ## Table 1 on the three bundled suites (offline default: scripted agents)
	$(CLI) -m experiment=table1 benchmark=claw_bundled,workspace_bundled,terminal_bundled save_results=true

table3: install ## Table 3A/3B: RES by depth, dependencies removed, no inheritance (Claw-style suite)
	$(CLI) experiment=table3 save_results=true

table3c: install ## Table 3C: depth caps 0,1,2,3,5,10 over the same lineages
	$(CLI) -m experiment=table3c scaling.depth_cap=0,1,2,3,5,10

table_a7: install ## Table A7: Pass@1 at thresholds 0.70, 0.80, 0.90 over the same episodes
	$(CLI) -m experiment=table_a7 metrics.threshold=0.7,0.8,0.9

res-depth: install ## Scripted agents per RES depth with both ablations on every bundled suite
	$(CLI) -m experiment=res_depth benchmark=claw_bundled,workspace_bundled,terminal_bundled,agentce save_results=true

tables: table1 table3 table3c table_a7 ## Every table implemented so far

check: install ## Validate the bundled terminal suite with oracle and nop
	$(CLI) check terminal_bundled

bench: install ## Print every performance figure (medians, ratios to a baseline, targets)
	$(PY) benchmarks/bench_sandbox.py
	$(PY) benchmarks/bench_dispatch.py
	$(PY) benchmarks/bench_agent_turn.py
	$(PY) benchmarks/bench_runner.py

mlflow-ui: install ## Open the MLflow UI on the project's tracking database
	$(VENV)/bin/mlflow ui --backend-store-uri sqlite:///$(CURDIR)/mlflow.db --default-artifact-root $(CURDIR)/mlartifacts

clean: ## Remove caches and run folders (keeps mlflow.db and results/)
	rm -rf .cache runs .pytest_cache .ruff_cache

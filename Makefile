# res-repro: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
CLI := $(VENV)/bin/res-repro
STAMP := $(VENV)/.installed

.PHONY: help install system-deps test lint format table1 check bench mlflow-ui clean

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

table1: install ## Table 1 (offline default: bundled suite, scripted agents); logs to MLflow
	$(CLI) experiment=table1

check: install ## Validate the bundled terminal suite with oracle and nop
	$(CLI) check terminal_bundled

bench: install ## Print sandbox start/exec/close costs (medians, ratios to a baseline)
	$(PY) benchmarks/bench_sandbox.py

mlflow-ui: install ## Open the MLflow UI on the project's tracking database
	$(VENV)/bin/mlflow ui --backend-store-uri sqlite:///$(CURDIR)/mlflow.db --default-artifact-root $(CURDIR)/mlartifacts

clean: ## Remove caches and run folders (keeps mlflow.db and results/)
	rm -rf .cache runs .pytest_cache .ruff_cache

# res-repro: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
CLI := $(VENV)/bin/res-repro
STAMP := $(VENV)/.installed
# A local Claw-Eval-Live checkout (`make table1 CLAW_EVAL_LIVE_DIR=DIR`): Table 1 adds the benchmark to
# the bundled suites, and the Claw-style tables, figures and depth study run on it instead of the
# bundled Claw-style suite.
export CLAW_EVAL_LIVE_DIR
# `make table1 MODELS=sim` (or paper, api): the models group; such runs leave the committed results alone.
MODELS ?=
CLAW_SUITE := $(if $(CLAW_EVAL_LIVE_DIR),claw_eval_live,claw_bundled)
CLAW := $(if $(CLAW_EVAL_LIVE_DIR),benchmark=claw_eval_live,)
comma := ,
SUITES := claw_bundled,workspace_bundled,terminal_bundled$(if $(CLAW_EVAL_LIVE_DIR),$(comma)claw_eval_live,)

.PHONY: help install system-deps test test-fast lint format table1 table2 table3 table3a table3b table3c table_a1 table_a2 table_a3 table_a4 table_a5 table_a6 table_a7 figures res-depth tables check bench bench-models bench-peers notebook mlflow-ui clean paper mutation security-report

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "} {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@echo "install 1/4: a virtual environment in $(VENV)"
	python3 -m venv $(VENV)
	@echo "install 2/4: pip"
	$(PY) -m pip install -q --upgrade pip
	@echo "install 3/4: torch 2.13.0, pinned first (a bare torch requirement can pull a CUDA build)"
	$(PY) -m pip install torch==2.13.0
	@echo "install 4/4: res-repro with its extras dev, ray, sft, browser (a few minutes on first install)"
	$(PY) -m pip install -e '.[dev,ray,sft,browser]'
	touch $@
	@echo "installed: $(VENV)"

system-deps: ## Install bubblewrap, slirp4netns, busybox-static, docker-registry, chromium and graphviz (apt-get where possible)
	@bash scripts/install_system_deps.sh

install: $(STAMP) system-deps ## Create the virtual environment and install everything

test: install ## Run the whole test suite, slow end-to-end runs included, one worker per core (as CI does; about 7 min on 2 cores)
	$(PY) -m pytest -q -n auto --dist worksteal

test-fast: install ## Run the tests not marked slow (nor needing Docker), one worker per core: the everyday loop (about 75 s on 2 cores)
	$(PY) -m pytest -q -m "not slow" -n auto --dist worksteal

lint: install ## Check style with ruff and the import layers with import-linter (pyproject.toml)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

security-report: install ## Run the fault and escape suite (tests/fault_suite.py) and print its figures: escapes blocked per backend, fault kinds, bad-input kinds
	$(PY) scripts/security_report.py -n auto

mutation: install ## Mutation testing of the core modules against their own tests, a score each (MUTATE=path.py: one)
	$(PY) scripts/mutation.py $(MUTATE)

format: install ## Reformat the code with ruff
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

table1: install ## Table 1 on the three bundled suites (offline default: scripted agents; MODELS=sim, paper or api)
	$(CLI) -m experiment=table1 benchmark=$(SUITES) $(if $(MODELS),models=$(MODELS) save_results=false,save_results=true)

table3a: install ## Table 3A: saved RES vs dependencies removed (the planned-depth >= 3 cohort, shared ablation records)
	$(CLI) experiment=table3a $(CLAW) save_results=true

table3b: install ## Table 3B: rebuilt RES vs without inheritance vs basic library (matched budgets)
	$(CLI) experiment=table3b $(CLAW) save_results=true

table3: table3a table3b ## Table 3A and 3B (the second reuses the first's records)

table3c: install ## Table 3C and Figure A4: depth caps 0,1,2,3,5,10 over the same lineages
	$(CLI) experiment=table3c $(CLAW) save_results=true

table_a1: install ## Table A1: the protocols' settings as configured, each with its config key, beside the paper's
	$(CLI) experiment=table_a1 $(CLAW) save_results=true

table_a2: install ## Table A2 and Figure 5: proposer cost per accepted child (mean, median, P90)
	$(CLI) experiment=table_a2 $(CLAW) save_results=true

table_a3: install ## Table A3: the SFT settings of every recipe (conf/sft/), beside the paper's
	$(CLI) experiment=table_a3 save_results=true

table_a4: install ## Table A4 and Figure 4: depth budgets with historical means (the scaling target)
	$(CLI) experiment=table_a4 $(CLAW) save_results=true

table_a5: install ## Table A5 and Figure A5: per-task scores under every ablation condition
	$(CLI) experiment=table_a5 $(CLAW) save_results=true

table_a6: install ## Table A6: execution cost per ablation condition (turns, tool calls, tokens, seconds)
	$(CLI) experiment=table_a6 $(CLAW) save_results=true

table_a7: install ## Table A7: success counts at thresholds 0.70, 0.80, 0.90 over the same episodes
	$(CLI) experiment=table_a7 $(CLAW) save_results=true

figures: install ## Figures 2, 4, 5, 6 and A1-A5 from the shared records
	$(CLI) experiment=figures $(CLAW) save_results=true

table2: install ## Table 2 on every bundled suite: SFT on original vs RES trajectories at equal counts, checkpoints evaluated (offline: tiny model)
	$(CLI) -m experiment=table2 benchmark=$(SUITES) save_results=true

res-depth: install ## Scripted agents per RES depth with both ablations on every bundled suite
	$(CLI) -m experiment=res_depth benchmark=$(CLAW_SUITE),workspace_bundled,terminal_bundled,agentce save_results=true

tables: table1 table2 table3a table3b table3c table_a1 table_a2 table_a3 table_a4 table_a5 table_a6 table_a7 ## Every table of the paper

paper: tables figures res-depth ## Everything: every table, every figure and the depth study, into results/

check: install ## Validate the bundled terminal suite with oracle and nop
	$(CLI) check terminal_bundled

bench: install ## Print every performance figure (medians, ratios to a baseline, targets)
	$(PY) benchmarks/run_all.py

bench-models: install ## Model-bound throughput: episodes per minute against the ideal at 8, 32 and 64 in flight with a 2 s simulated latency, memory and sandboxes per episode (about 20 min)
	$(PY) benchmarks/bench_models.py

bench-peers: install ## res-repro beside inspect-ai and Harbor on one trivial task (side environments in .peers/)
	$(PY) benchmarks/bench_peers.py

notebook: install ## Execute notebooks/table1_from_mlflow.ipynb against the project's MLflow store
	$(VENV)/bin/jupyter-execute notebooks/table1_from_mlflow.ipynb

PORT ?= 5000
mlflow-ui: install ## Open the MLflow UI on the project's tracking database (PORT=N: another port, default 5000)
	@echo "MLflow: http://127.0.0.1:$(PORT)/#/experiments (one experiment per pipeline: table1, table2, ...)"
	$(VENV)/bin/mlflow ui --port $(PORT) --backend-store-uri sqlite:///$(CURDIR)/mlflow.db --default-artifact-root $(CURDIR)/mlartifacts

clean: ## Remove caches and run folders (keeps mlflow.db and results/)
	rm -rf .cache runs .pytest_cache .ruff_cache

"""Pipelines: what ``res-repro task_name=...`` runs, looked up by name.

Each entry names its module and function; only the pipeline a run asks for is imported, so a table that
draws no figure never loads matplotlib and only Table 2 loads torch.

The modules form three tiers; a module imports only from its own tier or the ones above it:

1. records: ``lineages`` (agents, tasks, scaled lineages, episodes), ``reporting`` (publishing a
   result), ``paper`` (the paper's reported figures), ``protocol`` (the run's departures from the
   paper's protocol), ``simulated`` (the simulator of ``models=sim``);
2. views, shared reads of the records: ``reevaluation`` (every agent at every node), ``ablations`` (the
   component ablations on a slice), ``budgets``, ``lineage_views``, ``cells`` (table cells) and
   ``figure_views`` (figures that several results draw);
3. results, one module per paper result registered below (``table1``, ``table3``, ``paper_figures``...).
   No result imports another; what two results share moves down to a view.

Every metric (Pass@1, TCR, Score, RPR, success rules) comes from :mod:`res_repro.evaluation.metrics`,
with thresholds from the ``metrics`` config group.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from typing import Any

from omegaconf import DictConfig

from res_repro.config import multirun_dir
from res_repro.config_checks import check_config
from res_repro.errors import UserInputError

PIPELINES: dict[str, str] = {
    "table1": "res_repro.pipelines.table1:run_table1",
    "table2": "res_repro.pipelines.table2:run_table2",
    "res_depth": "res_repro.pipelines.depth:run_res_depth",
    "table3a": "res_repro.pipelines.table3:run_table3a",
    "table3b": "res_repro.pipelines.table3:run_table3b",
    "table3c": "res_repro.pipelines.table3c:run_table3c",
    "table_a1": "res_repro.pipelines.table_a1:run_table_a1",
    "table_a2": "res_repro.pipelines.table_a2:run_table_a2",
    "table_a3": "res_repro.pipelines.table_a3:run_table_a3",
    "table_a4": "res_repro.pipelines.table_a4:run_table_a4",
    "table_a5": "res_repro.pipelines.table_a5:run_table_a5",
    "table_a6": "res_repro.pipelines.table_a6:run_table_a6",
    "table_a7": "res_repro.pipelines.table_a7:run_table_a7",
    "figures": "res_repro.pipelines.paper_figures:run_figures",
}


# What a dry run asks of a pipeline: its planned episodes, built by the planning the run itself uses.
PLANS: dict[str, str] = {
    "table1": "res_repro.pipelines.table1:plan_table1",
}


def _lookup(table: dict[str, str], name: str, what: str) -> Callable[[DictConfig], Any]:
    try:
        module, _, function = table[name].partition(":")
    except KeyError:
        raise UserInputError(f"task_name: {what} {name!r}; expected one of {sorted(table)}") from None
    return getattr(importlib.import_module(module), function)


def pipeline_function(name: str) -> Callable[[DictConfig], object]:
    """The function of the pipeline registered as ``name``."""
    return _lookup(PIPELINES, name, "unknown pipeline")


def announce_once(text: str) -> None:
    """Print ``text``, except in a job of a multirun where an earlier job printed the same text."""
    sweep_dir = multirun_dir()
    if sweep_dir is not None:
        marker = sweep_dir / f".printed-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        sweep_dir.mkdir(parents=True, exist_ok=True)
        try:
            marker.open("x").close()
        except FileExistsError:
            return
    print(text)


def run_pipeline(cfg: DictConfig) -> object:
    """Run the pipeline named by ``cfg.task_name``: print the protocol and this run's departures from the
    paper's (once per multirun when its jobs share them), and serve any simulated model while it runs,
    inside the job's MLflow run (recorded RUNNING from the start, FINISHED or FAILED at the end). With
    ``dry_run``, print the projected model usage and cost instead, running nothing. A config value out
    of its range stops it before any work; Hydra's copies of the config lose their secrets, and what
    killed runs left behind (containers, mounts, services) is removed before it starts."""
    from res_repro.pipelines.protocol import protocol_text
    from res_repro.pipelines.reporting import job_run, redact_run_files
    from res_repro.pipelines.simulated import simulated_models
    from res_repro.sandbox.stale import clean_stale

    check_config(cfg)
    redact_run_files(cfg)
    function = pipeline_function(cfg.task_name)
    announce_once(protocol_text(cfg))
    if cfg.dry_run:
        from res_repro.pipelines.costs import dry_run

        return dry_run(cfg, _lookup(PLANS, cfg.task_name, "dry_run=true has no plan for pipeline")(cfg))
    for line in clean_stale(docker=cfg.sandbox.backend == "docker"):
        print(line)
    with job_run(cfg), simulated_models(cfg):
        return function(cfg)

"""Pipelines: what ``res-repro task_name=...`` runs, looked up by name."""

from __future__ import annotations

from collections.abc import Callable

from omegaconf import DictConfig

from res_repro.errors import UserInputError
from res_repro.pipelines.depth import run_res_depth
from res_repro.pipelines.paper_figures import run_figures
from res_repro.pipelines.table1 import run_table1
from res_repro.pipelines.table2 import run_table2
from res_repro.pipelines.table3 import run_table3a, run_table3b
from res_repro.pipelines.table3c import run_table3c
from res_repro.pipelines.table_a2 import run_table_a2
from res_repro.pipelines.table_a4 import run_table_a4
from res_repro.pipelines.table_a5 import run_table_a5
from res_repro.pipelines.table_a6 import run_table_a6
from res_repro.pipelines.table_a7 import run_table_a7

PIPELINES: dict[str, Callable[[DictConfig], object]] = {
    "table1": run_table1,
    "table2": run_table2,
    "res_depth": run_res_depth,
    "table3a": run_table3a,
    "table3b": run_table3b,
    "table3c": run_table3c,
    "table_a2": run_table_a2,
    "table_a4": run_table_a4,
    "table_a5": run_table_a5,
    "table_a6": run_table_a6,
    "table_a7": run_table_a7,
    "figures": run_figures,
}


def run_pipeline(cfg: DictConfig) -> object:
    """Run the pipeline named by ``cfg.task_name``."""
    try:
        pipeline = PIPELINES[cfg.task_name]
    except KeyError:
        raise UserInputError(
            f"task_name: unknown pipeline {cfg.task_name!r}; expected one of {sorted(PIPELINES)}"
        ) from None
    return pipeline(cfg)

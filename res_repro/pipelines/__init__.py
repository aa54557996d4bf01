"""Pipelines: what ``res-repro task_name=...`` runs, looked up by name."""

from __future__ import annotations

from collections.abc import Callable

from omegaconf import DictConfig

from res_repro.errors import UserInputError
from res_repro.pipelines.depth import run_res_depth
from res_repro.pipelines.table1 import run_table1

PIPELINES: dict[str, Callable[[DictConfig], object]] = {"table1": run_table1, "res_depth": run_res_depth}


def run_pipeline(cfg: DictConfig) -> object:
    """Run the pipeline named by ``cfg.task_name``."""
    try:
        pipeline = PIPELINES[cfg.task_name]
    except KeyError:
        raise UserInputError(
            f"task_name: unknown pipeline {cfg.task_name!r}; expected one of {sorted(PIPELINES)}"
        ) from None
    return pipeline(cfg)

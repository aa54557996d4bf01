"""The Hydra entry point: compose the config, then run the pipeline it names."""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from res_repro.config import CONF_DIR, register_configs
from res_repro.errors import UserInputError
from res_repro.pipelines import run_pipeline

register_configs()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def hydra_main(cfg: DictConfig) -> None:
    """Run one pipeline (or one job of a multirun) as configured; bad input ends it with one line."""
    try:
        run_pipeline(cfg)
    except UserInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)

"""The project's Hydra config composed in tests, outside a running app."""

from __future__ import annotations

from pathlib import Path

from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from res_repro.config import register_configs

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"


def compose_config(
    *overrides: str, root: Path | None = None, output_dir: Path | None = None, hydra: bool = False
) -> DictConfig:
    """``conf/config.yaml`` with ``overrides``; ``root`` becomes ``paths.root_dir``, ``output_dir`` the run
    folder (``${hydra:...}`` has no value outside a running app), ``hydra`` keeps the hydra node."""
    register_configs()
    rooted = [f"paths.root_dir={root}"] if root is not None else []
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*rooted, *overrides], return_hydra_config=hydra)
    if output_dir is not None:
        cfg.paths.output_dir = str(output_dir)
    return cfg

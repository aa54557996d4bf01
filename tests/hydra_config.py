"""The project's Hydra config composed in tests, outside a running app."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.config import CONF_DIR
from res_repro.config import compose_config as compose_project_config
from res_repro.evaluation.metrics import MetricSettings
from res_repro.pipelines.lineages import scaling_settings as settings_from_config
from res_repro.res.scaling import ScalingSettings

__all__ = ["CONF_DIR", "agent_loop", "compose_config", "metric_settings", "scaling_settings"]


def compose_config(
    *overrides: str, root: Path | None = None, output_dir: Path | None = None, hydra: bool = False
) -> DictConfig:
    """``conf/config.yaml`` with ``overrides``; ``root`` becomes ``paths.root_dir``, ``output_dir`` the run
    folder (``${hydra:...}`` has no value outside a running app), ``hydra`` keeps the hydra node."""
    rooted = [f"paths.root_dir={root}"] if root is not None else []
    cfg = compose_project_config(*rooted, *overrides, hydra=hydra)
    if output_dir is not None:
        cfg.paths.output_dir = str(output_dir)
    return cfg


@functools.cache
def _default_config() -> DictConfig:
    return compose_config()


def scaling_settings(**overrides: Any) -> ScalingSettings:
    """The default config's scaling settings (``conf/scaling/full.yaml``), with ``overrides``."""
    return settings_from_config(_default_config(), **overrides)


def agent_loop(**overrides: Any) -> dict[str, Any]:
    """The default config's ``agent_loop`` (``conf/agent_loop/default.yaml``) as a plain dict, with
    ``overrides`` merged in (a partial ``retry`` replaces only the keys it names)."""
    merged = OmegaConf.merge(_default_config().agent_loop, overrides)
    return OmegaConf.to_container(merged, resolve=True)  # type: ignore[return-value]


def metric_settings(**overrides: Any) -> MetricSettings:
    """The default config's metric settings (``conf/metrics/default.yaml``), with ``overrides``."""
    cfg = _default_config()
    return replace(MetricSettings.from_config(cfg.metrics, cfg.seed), **overrides)

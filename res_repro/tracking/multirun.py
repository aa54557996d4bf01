"""Multiruns: the sweep's overrides, the marker its driver leaves for the jobs, and the jobs' run names."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from res_repro.config import multirun_dir

PARENT_RUN_FILE = "mlflow_parent_run.json"


def sweep_overrides(
    overrides: Sequence[str], sweeper_params: Mapping[str, Any]
) -> dict[str, tuple[str, bool]]:
    """Each overridden key of a multirun: its value as written and whether it is swept (several values),
    from the command line and the sweeper's ``params``."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    lines = [*overrides, *(f"{key}={value}" for key, value in sweeper_params.items())]
    parsed = OverridesParser.create().parse_overrides(lines)
    return {o.key_or_group: (o.input_line.partition("=")[2], o.is_sweep_override()) for o in parsed}


def child_run_name(job_overrides: Sequence[str], swept: Sequence[str]) -> str | None:
    """A multirun job's run name: its own values of the swept keys (``a=1,b=x``); None when none is swept."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(job_overrides))
    mine = [o.input_line for o in parsed if o.key_or_group in swept]
    return ",".join(mine) or None


def multirun_marker() -> dict[str, Any] | None:
    """The multirun's marker (its folder, driver and swept keys) when this process is a job of a
    multirun, else None."""
    sweep_dir = multirun_dir()
    marker = sweep_dir / PARENT_RUN_FILE if sweep_dir else None
    return json.loads(marker.read_text()) if marker and marker.is_file() else None


def job_run_name(default: str) -> str:
    """The run name of this job: in a multirun, its swept overrides (``scaling.depth_cap=3,...``);
    otherwise ``default``."""
    from hydra.core.hydra_config import HydraConfig

    marker = multirun_marker()
    if marker is None:
        return default
    return child_run_name(list(HydraConfig.get().overrides.task), marker["swept"]) or default

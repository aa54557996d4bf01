"""The project's sweeper (hydra_plugins/res_repro_sweeper): configured for every run, and a bad override
still stops a multirun before anything runs when its job would wait for a worker."""

from __future__ import annotations

import importlib
import os
import subprocess
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from cli_runs import table1_command
from hydra.core.plugins import Plugins

from res_repro.config import compose_config


def _plugin() -> ModuleType:
    """The sweeper's module as Hydra uses it: loaded after Hydra's plugin scan, which runs every plugin
    module imported before it again (rebinding the classes a subclass made earlier derives from)."""
    Plugins.instance()
    return importlib.import_module("hydra_plugins.res_repro_sweeper.sweeper")


def _joblib_launcher(n_jobs: int | None) -> Any:
    launcher = importlib.import_module("hydra_plugins.hydra_joblib_launcher.joblib_launcher").JoblibLauncher()
    launcher.joblib = {"n_jobs": n_jobs}
    return launcher


def test_every_run_uses_the_sweeper() -> None:
    sweeper = compose_config(hydra=True).hydra.sweeper
    assert sweeper._target_ == f"{_plugin().__name__}.ComposedOnceSweeper"


@pytest.mark.parametrize(("n_jobs", "expected"), [(2, 2), (5, 5), (None, 1), (-1, (os.cpu_count() or 1))])
def test_jobs_started_at_once_follow_joblibs_n_jobs(n_jobs: int | None, expected: int) -> None:
    assert _plugin().started_at_once(_joblib_launcher(n_jobs)) == expected


def test_another_launcher_has_every_job_checked_first() -> None:
    assert _plugin().started_at_once(SimpleNamespace(executor={"timeout_min": 60})) == 0  # a submitit one


def test_only_the_jobs_that_wait_are_composed_in_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin, checked = _plugin(), []
    monkeypatch.setattr(
        plugin.BasicSweeper,
        "validate_batch_is_legal",
        lambda self, batch: checked.append([list(job) for job in batch]),
    )
    sweeper = plugin.ComposedOnceSweeper(max_batch_size=None)
    sweeper.launcher = _joblib_launcher(2)
    sweeper.validate_batch_is_legal([["benchmark=a"], ["benchmark=b"], ["benchmark=c"]])
    assert checked == [[["benchmark=c"]]]


@pytest.mark.slow
def test_a_bad_override_in_a_waiting_job_stops_the_sweep_before_any_job_runs(tmp_path: Path) -> None:
    command = table1_command(
        tmp_path, "benchmark=terminal_bundled,workspace_bundled,no_such_suite", flags=["--multirun"]
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode != 0
    assert "Could not find 'benchmark/no_such_suite'" in done.stderr
    assert not list(tmp_path.glob("runs/table1/multiruns/*/0"))  # no job folder: nothing was launched

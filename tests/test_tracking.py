"""MLflow tracking into a SQLite store: flattened params, tags and metrics land in the run; the run's
status follows the job; a multirun's parent holds its overrides and a summary of its children."""

from __future__ import annotations

import atexit
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import pytest
from hydra_config import compose_config

from res_repro.evaluation.metrics import RateEstimate
from res_repro.tracking import (
    PARENT_RUN_FILE,
    MultirunParent,
    child_run_name,
    config_hash,
    end_parent_run,
    fail_stale_runs,
    flatten,
    process_identity,
    sweep_overrides,
    tracked_run,
)


def test_flatten_nested_mapping():
    assert flatten({"a": {"b": 1, "c": {"d": [1, 2]}}, "e": "x"}) == {"a.b": 1, "a.c.d": [1, 2], "e": "x"}


def test_config_hash_is_stable_and_sensitive():
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


@pytest.mark.slow
def test_tracked_run_records_params_metrics_and_tags(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    artifact = tmp_path / "table.md"
    artifact.write_text("| a |\n")
    with tracked_run(
        enabled=True,
        uri=uri,
        experiment="unit",
        run_name="r",
        params={"metrics": {"threshold": 0.8}, "agents": ["oracle", "nop"]},
        tags={"git_commit": "abc"},
        artifact_root=str(tmp_path / "artifacts"),
    ) as tracker:
        tracker.log_metrics({"oracle.pass_rate": 1.0})
        tracker.log_artifacts([artifact], folder="results")
    run = mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(tracker.run_id)
    assert run.data.params["metrics.threshold"] == "0.8"
    assert run.data.params["agents"] == "['oracle', 'nop']"
    assert run.data.metrics["oracle.pass_rate"] == 1.0
    assert run.data.tags["git_commit"] == "abc"
    assert (tmp_path / "mlflow.db.lock").exists()
    assert list((tmp_path / "artifacts" / "unit").rglob("table.md"))


def test_disabled_tracking_records_nothing(tmp_path):
    with tracked_run(enabled=False, uri="", experiment="x", run_name="r", params={}, tags={}) as tracker:
        tracker.log_metrics({"m": 1.0})
    assert tracker.run_id is None


# The job's run: RUNNING from the start, FINISHED or FAILED at the end, also when the process is killed.

KILLABLE_JOB = """
import signal, sys, time
from pathlib import Path
from res_repro.cli import _exit_on_sigterm
from res_repro.tracking import tracked_run

signal.signal(signal.SIGTERM, _exit_on_sigterm)
uri, marker = sys.argv[1], Path(sys.argv[2])
with tracked_run(enabled=True, uri=uri, experiment="kill", run_name="job", params={}, tags={}) as tracker:
    marker.write_text(tracker.run_id)
    time.sleep(600)
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One SQLite store for the module (creating its tables takes seconds)."""
    folder = tmp_path_factory.mktemp("mlflow")
    return f"sqlite:///{folder / 'mlflow.db'}", folder


def _run(uri: str, name: str = "r", experiment: str = "unit", **tags: str):
    return tracked_run(enabled=True, uri=uri, experiment=experiment, run_name=name, params={}, tags=tags)


def _status(uri: str, run_id: str) -> str:
    return mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(run_id).info.status


@pytest.mark.slow
def test_run_is_running_while_the_job_runs_and_a_nested_call_logs_into_it(store):
    uri, _ = store
    with _run(uri) as outer:
        assert _status(uri, outer.run_id) == "RUNNING"
        with _run(uri, table="table1") as inner:
            inner.log_metrics({"m": 1.0})
        assert inner.run_id == outer.run_id
        assert _status(uri, outer.run_id) == "RUNNING"
    run = mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(outer.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["table"] == "table1"
    assert run.data.metrics["m"] == 1.0


@pytest.mark.slow
def test_a_job_that_raises_leaves_a_failed_run(store):
    uri, _ = store
    with pytest.raises(RuntimeError), _run(uri) as tracker:
        raise RuntimeError("boom")
    assert _status(uri, tracker.run_id) == "FAILED"


def _start_job(uri: str, marker: Path) -> subprocess.Popen:
    job = subprocess.Popen([sys.executable, "-c", KILLABLE_JOB, uri, str(marker)])
    deadline = time.monotonic() + 120
    while not marker.is_file() or not marker.read_text():
        assert job.poll() is None and time.monotonic() < deadline, "the job did not open its run"
        time.sleep(0.2)
    return job


@pytest.mark.slow
def test_sigterm_ends_the_run_failed(store):
    uri, folder = store
    job = _start_job(uri, folder / "term")
    job.send_signal(signal.SIGTERM)
    assert job.wait(timeout=60) == 128 + signal.SIGTERM
    assert _status(uri, (folder / "term").read_text()) == "FAILED"


@pytest.mark.slow
def test_the_next_run_marks_a_sigkilled_run_failed(store):
    uri, folder = store
    job = _start_job(uri, folder / "kill")
    job.kill()
    job.wait(timeout=60)
    killed = (folder / "kill").read_text()
    assert _status(uri, killed) == "RUNNING"  # nothing ran on the way out
    with _run(uri, experiment="kill") as tracker:
        assert tracker.run_id != killed
    run = mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(killed)
    assert run.info.status == "FAILED"
    assert "process ended" in run.data.tags["failure"]


@pytest.mark.slow
def test_a_live_process_keeps_its_running_run(store):
    uri, _ = store
    with _run(uri, experiment="live") as outer, _run(uri, experiment="live"):
        fail_stale_runs(outer.experiment_id, uri)
        assert _status(uri, outer.run_id) == "RUNNING"


def test_process_identity_tells_a_live_process_from_a_dead_one():
    job = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, job.pid, os.WEXITED | os.WNOWAIT)  # ended, not yet reaped: a zombie
    assert process_identity(job.pid) is None
    job.wait()
    assert process_identity(job.pid) is None
    assert process_identity(os.getpid()) == process_identity(os.getpid()) is not None


# Multiruns: a parent run with the sweep's overrides and a summary; children named by their overrides.


def test_sweep_overrides_tell_swept_keys_from_fixed_ones():
    found = sweep_overrides(
        ["experiment=table1", "benchmark=a,b", "save_results=true"], {"metrics.threshold": "0.7,0.9"}
    )
    assert found == {
        "experiment": ("table1", False),
        "benchmark": ("a,b", True),
        "save_results": ("true", False),
        "metrics.threshold": ("0.7,0.9", True),
    }


def test_child_run_name_keeps_only_the_swept_overrides_in_job_order():
    job = ["experiment=table3c", "scaling.depth_cap=3", "save_results=true", "metrics.threshold=0.9"]
    swept = ["metrics.threshold", "scaling.depth_cap"]
    assert child_run_name(job, swept) == "scaling.depth_cap=3,metrics.threshold=0.9"
    assert child_run_name(job, []) is None


@pytest.mark.slow
def test_multirun_parent_holds_params_and_a_summary_of_its_children(store, tmp_path):
    uri, folder = store
    cfg = compose_config(
        "benchmark=terminal_bundled",
        f"paths.mlflow_db={folder / 'mlflow.db'}",
        f"paths.mlflow_artifacts={folder / 'artifacts'}",
        "tracking.experiment=sweep",
        hydra=True,
    )
    cfg.hydra.sweep.dir = str(tmp_path / "sweep")
    cfg.hydra.overrides.task = ["benchmark=terminal_bundled,claw_bundled", "metrics.threshold=0.9"]
    callback = MultirunParent()
    callback.on_multirun_start(cfg)
    marker = json.loads((tmp_path / "sweep" / PARENT_RUN_FILE).read_text())
    assert marker["swept"] == ["benchmark"]
    assert _status(uri, marker["run_id"]) == "RUNNING"
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    for name, value in [("benchmark=terminal_bundled", 0.5), ("benchmark=claw_bundled", 0.25)]:
        child = client.create_run(
            marker["experiment_id"], run_name=name, tags={"mlflow.parentRunId": marker["run_id"]}
        )
        metrics = RateEstimate(value, value - 0.1, value + 0.1, 8).as_metrics("oracle.pass_at_1")
        for key, number in metrics.items():
            client.log_metric(child.info.run_id, key, number)
        client.set_terminated(child.info.run_id, "FINISHED")
    callback.on_multirun_end(cfg)
    parent = client.get_run(marker["run_id"])
    assert parent.info.status == "FINISHED"
    assert parent.data.params == {"benchmark": "terminal_bundled,claw_bundled", "metrics.threshold": "0.9"}
    assert parent.data.metrics["children.finished"] == 2
    assert {a.path for a in client.list_artifacts(parent.info.run_id)} >= {
        "sweep_summary.csv",
        "sweep_summary.md",
    }
    rows = list(csv.DictReader((tmp_path / "sweep" / "sweep_summary.csv").open()))
    assert [(r["run"], r["metric"], float(r["value"]), r["n"]) for r in rows] == [
        ("benchmark=terminal_bundled", "oracle.pass_at_1", 0.5, "8.0"),
        ("benchmark=claw_bundled", "oracle.pass_at_1", 0.25, "8.0"),
    ]
    assert float(rows[1]["ci_low"]) == pytest.approx(0.15)


@pytest.mark.slow
def test_a_multirun_that_stops_early_ends_its_parent_failed(store, tmp_path):
    uri, folder = store
    cfg = compose_config(f"paths.mlflow_db={folder / 'mlflow.db'}", "tracking.experiment=sweep", hydra=True)
    cfg.hydra.sweep.dir = str(tmp_path / "sweep")
    cfg.hydra.overrides.task = ["benchmark=terminal_bundled,claw_bundled"]
    MultirunParent().on_multirun_start(cfg)
    marker = json.loads((tmp_path / "sweep" / PARENT_RUN_FILE).read_text())
    atexit.unregister(end_parent_run)  # what the interpreter would run on its way out
    end_parent_run(tmp_path / "sweep", "FAILED")
    assert _status(uri, marker["run_id"]) == "FAILED"


def test_make_mlflow_ui_takes_a_port(tmp_path):
    root = Path(__file__).resolve().parents[1]
    shown = subprocess.run(
        ["make", "-n", "-o", "install", "mlflow-ui", "PORT=5123"], cwd=root, capture_output=True, text=True
    ).stdout
    assert "--port 5123" in shown
    assert f"sqlite:///{root}/mlflow.db" in shown

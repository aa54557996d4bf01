"""MLflow tracking into a SQLite store: flattened params, tags and metrics land in the run; the run's
status follows the job; a multirun's parent holds its overrides and a summary of its children."""

from __future__ import annotations

import atexit
import csv
import json
import os
import signal
import socket
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
    RunRecord,
    child_run_name,
    config_hash,
    end_parent_run,
    flatten,
    pending_dir,
    process_identity,
    sweep_overrides,
    tracked_run,
)
from res_repro.tracking.processes import this_process
from res_repro.tracking.store import fail_stale_runs


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


# The job's run: a record RUNNING while the job runs, written to MLflow once, FINISHED or FAILED, when it
# ends; also when the process is stopped by a signal, or (by the next run) when it is killed.

KILLABLE_JOB = """
import signal, sys, time
from pathlib import Path
from res_repro.cli import _exit_on_sigterm
from res_repro.tracking import tracked_run

signal.signal(signal.SIGTERM, _exit_on_sigterm)
uri, experiment, marker = sys.argv[1], sys.argv[2], Path(sys.argv[3])
with tracked_run(enabled=True, uri=uri, experiment=experiment, run_name="job", params={}, tags={}):
    marker.write_text("started")
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


def _runs(uri: str, experiment: str) -> list:
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    return client.search_runs([found.experiment_id]) if found else []


def _records(uri: str) -> list[RunRecord]:
    return [RunRecord.load(p) for p in sorted(pending_dir(uri, None).glob("*.json"))]


@pytest.mark.slow
def test_a_run_is_recorded_running_and_written_once_when_the_job_ends(store):
    uri, _ = store
    with _run(uri, experiment="once") as outer:
        [record] = _records(uri)
        assert record.status == "RUNNING" and _runs(uri, "once") == []  # MLflow is not opened yet
        with _run(uri, table="table1") as inner:
            inner.log_metrics({"m": 1.0})
        assert inner is outer
    run = mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(outer.run_id)
    assert run.info.status == "FINISHED"
    assert run.info.start_time == record.start_ms
    assert run.data.tags["table"] == "table1"
    assert run.data.metrics["m"] == 1.0
    assert _records(uri) == []


@pytest.mark.slow
def test_a_job_that_raises_leaves_a_failed_run(store):
    uri, _ = store
    with pytest.raises(RuntimeError), _run(uri) as tracker:
        raise RuntimeError("boom")
    assert _status(uri, tracker.run_id) == "FAILED"


def _start_job(uri: str, experiment: str, marker: Path) -> subprocess.Popen:
    job = subprocess.Popen([sys.executable, "-c", KILLABLE_JOB, uri, experiment, str(marker)])
    deadline = time.monotonic() + 120
    while not marker.is_file():
        assert job.poll() is None and time.monotonic() < deadline, "the job did not start its run"
        time.sleep(0.2)
    return job


@pytest.mark.slow
def test_a_live_job_keeps_its_record_and_sigterm_ends_its_run_failed(store):
    uri, folder = store
    job = _start_job(uri, "term", folder / "term")
    with _run(uri, experiment="term"):  # another run ends meanwhile: it leaves the live job's record alone
        pass
    assert [r.info.run_name for r in _runs(uri, "term")] == ["r"]
    assert any(r.run_name == "job" and r.status == "RUNNING" for r in _records(uri))
    job.send_signal(signal.SIGTERM)
    assert job.wait(timeout=60) == 128 + signal.SIGTERM
    assert {r.info.run_name: r.info.status for r in _runs(uri, "term")} == {"r": "FINISHED", "job": "FAILED"}


@pytest.mark.slow
def test_the_next_run_writes_a_sigkilled_job_failed(store):
    uri, folder = store
    job = _start_job(uri, "kill", folder / "kill")
    job.kill()
    job.wait(timeout=60)
    assert _runs(uri, "kill") == []  # nothing ran on the way out
    with _run(uri, experiment="kill") as tracker:
        pass
    [killed] = [r for r in _runs(uri, "kill") if r.info.run_id != tracker.run_id]
    assert killed.info.status == "FAILED" and killed.info.run_name == "job"
    assert "process ended" in killed.data.tags["failure"]


@pytest.mark.slow
def test_a_writer_killed_while_writing_leaves_a_run_the_next_writer_fails(store):
    uri, _ = store
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with _run(uri, experiment="stale") as tracker:
        pass
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    stale = client.create_run(
        tracker.experiment_id, tags={"host": socket.gethostname(), "process": f"{dead.pid}:1"}
    )
    live = client.create_run(
        tracker.experiment_id, tags={"host": socket.gethostname(), "process": this_process()}
    )
    assert fail_stale_runs(tracker.experiment_id, uri) == [stale.info.run_id]
    assert _status(uri, stale.info.run_id) == "FAILED" and _status(uri, live.info.run_id) == "RUNNING"


@pytest.mark.slow
def test_an_identical_rerun_writes_nothing_and_a_changed_one_a_new_run(store, tmp_path):
    uri, _ = store
    table = tmp_path / "table.md"
    table.write_text("| a |\n")

    def job(value: float) -> str:
        params = {"paths": {"output_dir": str(tmp_path / str(time.monotonic_ns()))}, "seed": 0}
        with tracked_run(
            enabled=True, uri=uri, experiment="rerun", run_name="r", params=params, tags={"config_hash": "x"}
        ) as tracker:
            tracker.log_metrics({"m": value})
            tracker.log_artifacts([table], folder="results")
        return tracker.run_id

    first = job(1.0)
    assert job(1.0) == first  # the run folder and the config hash over it differ; nothing else does
    assert len(_runs(uri, "rerun")) == 1
    table.write_text("| b |\n")
    assert job(1.0) != first
    assert len(_runs(uri, "rerun")) == 2


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


def _sweep_config(folder: Path, sweep: Path):
    cfg = compose_config(
        "benchmark=terminal_bundled",
        f"paths.mlflow_db={folder / 'mlflow.db'}",
        f"paths.mlflow_artifacts={folder / 'artifacts'}",
        "tracking.experiment=sweep",
        hydra=True,
    )
    cfg.hydra.sweep.dir = str(sweep)
    cfg.hydra.overrides.task = ["benchmark=terminal_bundled,claw_bundled", "metrics.threshold=0.9"]
    return cfg


_LAST_START_MS = [0]


def _next_start_ms() -> int:
    """Now in milliseconds, later than every start this module gave before: jobs start one after another,
    and two records made within one millisecond would otherwise tie."""
    _LAST_START_MS[0] = max(int(time.time() * 1000), _LAST_START_MS[0] + 1)
    return _LAST_START_MS[0]


def _job_record(marker: dict, name: str, value: float, status: str = "FINISHED") -> RunRecord:
    """What a job of the sweep leaves for its driver."""
    record = RunRecord(
        record_id=f"{name}-{time.monotonic_ns()}",
        uri=marker["uri"],
        experiment=marker["experiment"],
        artifact_root=marker["artifact_root"],
        run_name=name,
        metrics=RateEstimate(value, value - 0.1, value + 0.1, 8).as_metrics("oracle.pass_at_1"),
        sweep=marker["sweep"],
        process=this_process(),
        owner=marker["owner"],
        host=socket.gethostname(),
        status=status,
        start_ms=_next_start_ms(),
    )
    record.save()
    return record


@pytest.mark.slow
def test_multirun_parent_holds_params_and_a_summary_of_its_children(store, tmp_path, capsys):
    uri, folder = store
    cfg = _sweep_config(folder, tmp_path / "sweep")
    callback = MultirunParent()
    callback.on_multirun_start(cfg)
    marker = json.loads((tmp_path / "sweep" / PARENT_RUN_FILE).read_text())
    assert marker["swept"] == ["benchmark"]
    for name, value in [("benchmark=terminal_bundled", 0.5), ("benchmark=claw_bundled", 0.25)]:
        _job_record(marker, name, value)
    callback.on_multirun_end(cfg)
    assert (
        f"sweep summary (rates and scores in %): {tmp_path / 'sweep' / 'sweep_summary.md'}"
        in capsys.readouterr().out
    )
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    [parent] = [r for r in _runs(uri, "sweep") if r.data.tags.get("multirun") == "parent"]
    assert parent.info.status == "FINISHED"
    assert parent.info.start_time == marker["start_ms"]
    assert parent.data.params == {"benchmark": "terminal_bundled,claw_bundled", "metrics.threshold": "0.9"}
    assert parent.data.metrics["children.finished"] == 2
    assert {a.path for a in client.list_artifacts(parent.info.run_id)} >= {
        "sweep_summary.csv",
        "sweep_summary.md",
    }
    rows = list(csv.DictReader((tmp_path / "sweep" / "sweep_summary.csv").open()))
    assert [(r["run"], r["metric"], r["unit"], float(r["value"]), r["n"]) for r in rows] == [
        ("benchmark=terminal_bundled", "oracle.pass_at_1", "%", 50.0, "8.0"),
        ("benchmark=claw_bundled", "oracle.pass_at_1", "%", 25.0, "8.0"),
    ]
    assert float(rows[1]["ci_low"]) == pytest.approx(15.0)  # percent, as the tables
    assert _records(uri) == []

    # the same sweep again (a warm rerun): nothing new in the store
    written = len(_runs(uri, "sweep"))
    cfg = _sweep_config(folder, tmp_path / "again")
    callback.on_multirun_start(cfg)
    again = json.loads((tmp_path / "again" / PARENT_RUN_FILE).read_text())
    for name, value in [("benchmark=terminal_bundled", 0.5), ("benchmark=claw_bundled", 0.25)]:
        _job_record(again, name, value)
    atexit.unregister(end_parent_run)
    assert end_parent_run(tmp_path / "again", "FINISHED") == parent.info.run_id
    assert len(_runs(uri, "sweep")) == written and _records(uri) == []


@pytest.mark.slow
def test_a_multirun_that_stops_early_ends_its_parent_and_running_children_failed(store, tmp_path):
    uri, folder = store
    cfg = _sweep_config(folder, tmp_path / "sweep")
    cfg.tracking.experiment = "stopped"
    MultirunParent().on_multirun_start(cfg)
    marker = json.loads((tmp_path / "sweep" / PARENT_RUN_FILE).read_text())
    _job_record(marker, "benchmark=terminal_bundled", 0.5)
    _job_record(marker, "benchmark=claw_bundled", 0.25, status="RUNNING")
    atexit.unregister(end_parent_run)  # what the interpreter would run on its way out
    parent_id = end_parent_run(tmp_path / "sweep", "FAILED")
    assert _status(uri, parent_id) == "FAILED"
    children = {r.info.run_name: r for r in _runs(uri, "stopped") if r.info.run_id != parent_id}
    assert children["benchmark=terminal_bundled"].info.status == "FINISHED"
    assert children["benchmark=claw_bundled"].info.status == "FAILED"
    assert "stopped before the job ended" in children["benchmark=claw_bundled"].data.tags["failure"]


def test_a_multirun_that_stops_before_any_job_writes_no_parent(store, tmp_path, capsys):
    uri, folder = store
    cfg = _sweep_config(folder, tmp_path / "sweep")
    cfg.tracking.experiment = "never_started"
    MultirunParent().on_multirun_start(cfg)
    atexit.unregister(end_parent_run)  # what the interpreter would run on its way out
    assert end_parent_run(tmp_path / "sweep", "FAILED") is None
    assert "stopped before any job recorded a run" in capsys.readouterr().out
    assert _runs(uri, "never_started") == []


def test_make_mlflow_ui_takes_a_port(tmp_path):
    root = Path(__file__).resolve().parents[1]
    shown = subprocess.run(
        ["make", "-n", "-o", "install", "mlflow-ui", "PORT=5123"], cwd=root, capture_output=True, text=True
    ).stdout
    assert "--port 5123" in shown
    assert f"sqlite:///{root}/mlflow.db" in shown


def test_the_ui_opens_on_the_pipelines_experiments_not_an_empty_default(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with tracked_run(
        enabled=True,
        uri=uri,
        experiment="table1",
        run_name="r",
        params={},
        tags={},
        artifact_root=str(tmp_path),
    ) as tracker:
        tracker.log_metrics({"m": 1.0})
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    assert [e.name for e in client.search_experiments()] == ["table1"]  # active ones: Default is hidden


def test_a_new_store_is_a_copy_of_an_empty_one_kept_per_mlflow_version(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    template = tmp_path / "cache" / "res-repro" / f"mlflow-{mlflow.__version__}.db"
    for root, metric in ((tmp_path / "a", 1.0), (tmp_path / "b", 2.0)):
        uri = f"sqlite:///{root / 'mlflow.db'}"
        with tracked_run(
            enabled=True, uri=uri, experiment="e", run_name="r", params={}, tags={}, artifact_root=str(root)
        ) as tracker:
            tracker.log_metrics({"m": metric})
        assert template.is_file()
        client = mlflow.tracking.MlflowClient(tracking_uri=uri)
        [run] = client.search_runs([client.get_experiment_by_name("e").experiment_id])
        assert run.data.metrics == {"m": metric}
    empty = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{template}")
    assert [e.name for e in empty.search_experiments()] == ["Default"]  # the template holds no run

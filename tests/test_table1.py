"""`make table1`'s path end to end: episodes, a table beside the paper, files, and an MLflow run."""

from __future__ import annotations

import subprocess
import sys

import mlflow


def _run(tmp_path, *overrides: str, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "res_repro",
        *flags,
        "experiment=table1",
        "benchmark.limit=2",
        f"paths.root_dir={tmp_path}",
        "show_progress=false",
        *overrides,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_table1_runs_end_to_end_and_reuses_episodes(tmp_path):
    first = _run(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "| oracle | scripted | original | 2 | 100.00 |" in first.stdout
    assert "| nop | scripted | original | 2 | 0.00 |" in first.stdout
    assert "| DeepSeek-V4.1-Flash | model | original |" in first.stdout
    assert "91.01" in first.stdout  # the paper column
    tables = list((tmp_path / "runs" / "table1" / "runs").glob("*/table1.csv"))
    assert len(tables) == 1

    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("table1")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1
    assert runs[0].data.metrics["oracle.original.pass_rate"] == 1.0
    assert runs[0].data.params["benchmark.limit"] == "2"
    assert "config_hash" in runs[0].data.tags
    artifacts = {a.path for a in client.list_artifacts(runs[0].info.run_id, "results")}
    assert {"results/table1.md", "results/table1.csv", "results/table1.tex"} <= artifacts

    second = _run(tmp_path)
    assert second.returncode == 0, second.stderr
    assert "4 episodes: 4 reused from the store, 0 to run" in second.stdout + second.stderr


def test_multirun_lands_one_run_per_job(tmp_path):
    result = _run(tmp_path, "metrics.confidence=0.9,0.95", flags=("--multirun",))
    assert result.returncode == 0, result.stdout + result.stderr
    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("table1").experiment_id])
    assert sorted(r.data.params["metrics.confidence"] for r in runs) == ["0.9", "0.95"]

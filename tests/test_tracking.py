"""MLflow tracking into a SQLite store: flattened params, tags and metrics land in the run."""

from __future__ import annotations

import mlflow
import pytest

from res_repro.tracking import config_hash, flatten, tracked_run


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

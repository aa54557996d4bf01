"""A run with tracking off imports nothing of MLflow (importing it and opening its store costs seconds), and
a job of a multirun only records its run for the driver, without MLflow."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from res_repro.tracking import RunRecord, pending_dir

PROBE = """
import atexit, sys
atexit.register(lambda: print("MLFLOW_MODULES", sorted(m for m in sys.modules if m.startswith("mlflow"))))
from res_repro.cli import main
sys.argv = ["res-repro", *sys.argv[1:]]
main()
"""


@pytest.mark.slow
def test_a_run_with_tracking_off_never_imports_mlflow(tmp_path):
    command = [
        sys.executable,
        "-c",
        PROBE,
        "experiment=table1",
        "benchmark=claw_bundled",
        "benchmark.limit=1",
        "scaling.depth_cap=1",
        "tracking=none",
        f"paths.root_dir={tmp_path}",
        "show_progress=false",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert next(tmp_path.glob("runs/table1/runs/*/episodes.jsonl")).stat().st_size > 0  # the run did run
    assert "MLFLOW_MODULES []" in result.stdout, result.stdout[-2000:]


JOB = """
import json, sys
from pathlib import Path
from res_repro.tracking import runs

uri, artifact = sys.argv[1], Path(sys.argv[2])
marker = json.loads(sys.argv[3])
runs.multirun_marker = lambda: marker  # as a job of a multirun sees its driver's marker
runs.job_run_name = lambda default: "benchmark=x"
with runs.tracked_run(enabled=True, uri=uri, experiment="e", run_name="r", params={}, tags={}) as tracker:
    tracker.log_metrics({"m": 1.0})
    tracker.log_artifacts([artifact], folder="results")
print("MLFLOW_MODULES", sorted(m for m in sys.modules if m.startswith("mlflow")))
"""


def test_a_multirun_job_records_its_run_for_the_driver_without_mlflow(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    artifact = tmp_path / "table.md"
    artifact.write_text("| a |\n")
    marker = {"sweep": str(tmp_path / "sweep"), "owner": "1:1"}
    result = subprocess.run(
        [sys.executable, "-c", JOB, uri, str(artifact), json.dumps(marker)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "MLFLOW_MODULES []" in result.stdout, result.stdout[-2000:]
    [record] = [RunRecord.load(p) for p in pending_dir(uri, None).glob("*.json")]
    assert (record.status, record.run_name, record.sweep) == ("FINISHED", "benchmark=x", marker["sweep"])
    assert record.metrics == {"m": 1.0} and record.artifacts == [(str(artifact.resolve()), "results")]
    assert not (tmp_path / "mlflow.db").exists()  # the driver writes it

"""A run with tracking off imports nothing of MLflow (importing it and opening its store costs seconds)."""

from __future__ import annotations

import subprocess
import sys

import pytest

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

"""The notebook reads a table1 run back from MLflow and redraws its figure (executed as users would)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import nbformat
import pytest
from cli_runs import ONE_LEVEL, table1_command
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "table1_from_mlflow.ipynb"


@pytest.mark.slow
def test_the_notebook_redraws_table1_from_mlflow(tmp_path, monkeypatch):
    run = subprocess.run(
        table1_command(tmp_path, "benchmark.limit=2", *ONE_LEVEL, "agents=[oracle,nop]"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    figure = tmp_path / "redrawn.png"
    monkeypatch.setenv("RES_REPRO_MLFLOW_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    monkeypatch.setenv("RES_REPRO_NOTEBOOK_FIGURE", str(figure))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()

    text = "".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "1 finished runs in experiment 'table1'" in text
    assert "terminal_bundled pass_at_1 {'nop': (0.0, 0.0), 'oracle': (1.0, 1.0)}" in text
    images = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert len(images) == 1
    assert figure.stat().st_size > 10_000

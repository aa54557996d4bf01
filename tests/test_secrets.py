"""API keys never reach MLflow, artifacts, logs, trajectories, caches or exported datasets."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fake_providers import OPENAI, FakeModelServer, Reply

SECRET = "sk-canary-5f1e2d3c4b5a69788796a5b4c3d2e1f0"


@pytest.mark.slow
def test_no_output_of_a_run_with_keys_contains_the_key(tmp_path):
    with FakeModelServer(OPENAI, after=Reply("I am done.")) as server:
        command = [
            sys.executable,
            "-m",
            "res_repro",
            "experiment=table1",
            "benchmark=claw_bundled",
            "benchmark.limit=2",
            "scaling.depth_cap=1",
            "scaling.target=null",
            "+model@models.fake=gpt_5_6_sol",
            f"models.fake.base_url={server.base_url}",
            "models.fake.api_key_env=FAKE_API_KEY",
            "agents=[fake]",
            f"paths.root_dir={tmp_path}",
            "show_progress=false",
        ]
        env = {**os.environ, "FAKE_API_KEY": SECRET, "OPENAI_API_KEY": SECRET}
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        assert result.returncode == 0, result.stderr
        assert server.requests and all(SECRET in r.headers.get("authorization", "") for r in server.requests)
    episodes = next(tmp_path.glob("runs/table1/runs/*/episodes.jsonl"))
    exported = tmp_path / "sft.jsonl"
    subprocess.run(
        [sys.executable, "-m", "res_repro", "export-sft", str(episodes), str(exported), "--all"],
        check=True,
        env=env,
    )
    assert exported.stat().st_size > 0
    scanned = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(scanned) > 20
    leaks = [p for p in scanned if SECRET.encode() in p.read_bytes()]
    assert leaks == []
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.slow
def test_a_secret_given_in_the_config_is_redacted_in_mlflow(tmp_path):
    command = [
        sys.executable,
        "-m",
        "res_repro",
        "experiment=table1",
        "benchmark.limit=1",
        "scaling.depth_cap=1",
        "scaling.target=null",
        "agents=[oracle]",
        f"+executor.runtime_env.env_vars.OPENAI_API_KEY={SECRET}",
        f"paths.root_dir={tmp_path}",
        "show_progress=false",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    tracked = [tmp_path / "mlflow.db", *(p for p in (tmp_path / "mlartifacts").rglob("*") if p.is_file())]
    assert any(p.name == "config.yaml" for p in tracked)  # the .hydra folder was logged, scrubbed
    assert [p for p in tracked if SECRET.encode() in p.read_bytes()] == []
